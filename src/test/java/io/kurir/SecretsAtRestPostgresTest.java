package io.kurir;

import io.kurir.testing.OnPostgreSQL;

@OnPostgreSQL
class SecretsAtRestPostgresTest extends SecretsAtRestTest {}
