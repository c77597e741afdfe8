# Kurir's container image: the release jar on a Java runtime, run as an unprivileged user, its data
# under /var/lib/kurir. Build the jar first, then the image (docs/operations.md, "Containers"):
#
#   ./kurir release          # or: mvn -Prelease package -DskipTests; writes target/kurir-release.jar
#   docker build -t kurir .
#
# Settings come as KURIR_* variables (docker run -e, or compose.yaml) or as flags after the image
# name: docker run kurir serve --port=9000. The admin commands run in the same image:
#   docker compose exec kurir java -jar /opt/kurir/kurir.jar admin device list
FROM eclipse-temurin:25-jre

RUN useradd --system --uid 10001 --home-dir /var/lib/kurir kurir \
    && mkdir -p /var/lib/kurir \
    && chown kurir /var/lib/kurir

COPY target/kurir-release.jar /opt/kurir/kurir.jar

WORKDIR /var/lib/kurir
USER kurir
# The SQLite database, the media files and the sandbox journal live under data.dir; with
# PostgreSQL only the media files do. Mount a volume there either way.
ENV KURIR_DATA_DIR=/var/lib/kurir/data
VOLUME /var/lib/kurir
EXPOSE 8080

# The JVM takes three quarters of the container's memory limit for its heap.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/opt/kurir/kurir.jar"]
CMD ["serve"]
