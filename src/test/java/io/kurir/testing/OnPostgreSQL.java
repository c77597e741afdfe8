package io.kurir.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Runs a test class on PostgreSQL: every {@link TestGateway}, {@link CoreNode} and {@link
 * TestDatabases#forDir} it starts gets a fresh PostgreSQL database (one per folder, so a restart on
 * the same folder finds its data), dropped after the test. Put it on a subclass of a test that runs
 * on SQLite, in the manner of db-scheduler's compatibility tests:
 *
 * <pre>{@code
 * @OnPostgreSQL
 * class MessageStatePostgresTest extends MessageStateTest {}
 * }</pre>
 *
 * <p>It also tags the class {@code postgres}, a slow tier that {@code ./kurir test fast} leaves out
 * (a subclass inherits both the extension and the tag).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(TestDatabases.PostgreSQLExtension.class)
@Tag("postgres")
@Isolated("the engine of the tests' databases is a static setting of TestDatabases")
public @interface OnPostgreSQL {}
