# Kurir's container image, built from the sources in two stages: a Maven and JDK image runs the
# release build (./kurir release), then only its jar goes onto a Java runtime, run as an
# unprivileged user with its data under /var/lib/kurir. From a clean checkout (docs/operations.md,
# "Containers"):
#
#   docker build -t kurir .
#
# Settings come as KURIR_* variables (docker run -e, or compose.yaml) or as flags after the image
# name: docker run kurir serve --port=9000. The admin commands run in the same image:
#   docker compose exec kurir java -jar /opt/kurir/kurir.jar admin device list

# The build: the same Maven command as ./kurir release, on the build context (a checkout; target/
# and data/ are left out by .dockerignore, so nothing built elsewhere gets in).
FROM maven:3.9-eclipse-temurin-25 AS build
# Maven's own libraries use sun.misc.Unsafe, which JDK 24 and later warn about on every build.
ENV MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow"
WORKDIR /src
# The build's plugins and libraries first, in a layer of their own, so that a change to the
# sources does not fetch them again.
COPY pom.xml ./
COPY .mvn .mvn
RUN mvn -B --no-transfer-progress -Prelease dependency:go-offline -Dspotless.check.skip=true
COPY src src
COPY clients/apps-script clients/apps-script
RUN mvn -B --no-transfer-progress package -Prelease -Dmaven.test.skip=true \
      -Dspotless.check.skip=true

# The image: a Java runtime and the release jar, nothing of the build.
FROM eclipse-temurin:25-jre

RUN useradd --system --uid 10001 --home-dir /var/lib/kurir kurir \
    && mkdir -p /var/lib/kurir \
    && chown kurir /var/lib/kurir

COPY --from=build /src/target/kurir-release.jar /opt/kurir/kurir.jar

WORKDIR /var/lib/kurir
USER kurir
# The SQLite database, the media files and the sandbox journal live under data.dir; with
# PostgreSQL only the media files do. Mount a volume there either way.
ENV KURIR_DATA_DIR=/var/lib/kurir/data
VOLUME /var/lib/kurir
EXPOSE 8080

# Healthy when the gateway answers /health/ready: its database, migrations, writer and drivers are
# up. `kurir health` reads the same KURIR_* settings as the gateway (its port, https) and needs
# only Java, not a curl or wget the runtime image need not have. A first start (migrations on a
# large database) may take a while, hence the start period.
HEALTHCHECK --interval=15s --timeout=10s --start-period=120s --retries=3 \
  CMD ["java", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-jar", "/opt/kurir/kurir.jar", "health"]

# The JVM takes three quarters of the container's memory limit for its heap.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/opt/kurir/kurir.jar"]
CMD ["serve"]
