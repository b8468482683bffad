#!/usr/bin/env bash
# The Java API's tests: builds the jars (scripts/build-jar.sh) and the CLI the keys are
# compared with, checks the Javadoc of the public API, compiles the tests with the examples
# (examples/java) and the benchmarks (benches/java) so that neither can rot, then runs the
# JUnit 5 tests; and the Spark tests when the Spark jar was built (Spark's jars found:
# SPARK_JARS, SPARK_HOME, or the pyspark of $IRINORM_VENV or python/.venv).
#
#   scripts/test-java.sh
#   JUNIT_CONSOLE=/path/junit-platform-console-standalone.jar scripts/test-java.sh
#
# Needs a JDK (17 or later) and JUnit 5's console launcher (Debian: apt-get install junit5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
junit=${JUNIT_CONSOLE:-/usr/share/java/junit-platform-console-standalone.jar}
for tool in javac jar java javadoc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test-java: $tool not found (a JDK 17 or later is needed)" >&2; exit 2; }
done
if [ ! -f "$junit" ]; then
  echo "test-java: JUnit 5's console launcher is not at $junit (apt-get install junit5, or set JUNIT_CONSOLE)" >&2
  exit 2
fi

started=$SECONDS
scripts/build-jar.sh
echo "== cargo build --release --locked --bin irinorm (the CLI the keys are compared with)"
cargo build --release --locked --bin irinorm
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' jvm/Cargo.toml | head -n 1)
jar=$root/target/java/irinorm-$version.jar
spark_jar=$root/target/java/irinorm-spark-$version.jar
out=$root/target/java/test
rm -rf "$out"
mkdir -p "$out"

# The published coordinates follow the crate's version.
grep -q "<version>$version</version>" jvm/java/pom.xml || { echo "test-java: jvm/java/pom.xml is not version $version" >&2; exit 1; }

echo "== javadoc (every public name of org.irinorm documented)"
javadoc -quiet -Xdoclint:all -Werror -d "$out/javadoc" -sourcepath jvm/java/src/main/java org.irinorm

echo "== javac: tests, examples, benchmarks"
javac --release 17 -Xlint:all -Werror -d "$out/classes" -cp "$jar:$junit" \
  $(find jvm/java/src/test/java examples/java benches/java -name '*.java')

properties=(-Dirinorm.repo="$root" -Dirinorm.cli="$root/target/release/irinorm"
  -Dirinorm.corpora="${IRINORM_CORPORA:-$root/../shared/corpora}" -Dirinorm.jar="$jar")
# -Xcheck:jni: the JVM checks every JNI call of the native library; a warning fails the run.
echo "== JUnit 5 (with -Xcheck:jni)"
java -Xcheck:jni "${properties[@]}" -jar "$junit" --disable-banner --details=tree --fail-if-no-tests \
  --class-path "$jar:$out/classes" --scan-class-path "$out/classes" 2>&1 | tee "$out/junit.log"
if grep -n "in native method" "$out/junit.log"; then
  echo "test-java: -Xcheck:jni reported a misuse of JNI (above)" >&2
  exit 1
fi

if [ ! -f "$spark_jar" ]; then
  echo "== Spark tests: skipped (no $spark_jar: Spark's jars were not found)"
  echo "java tests: $((SECONDS - started)) s"
  exit 0
fi
spark_jars=$(sed -n 's/^spark: //p' target/java/build/spark-jars 2>/dev/null || true)
echo "== Spark tests (local, Spark from $spark_jars)"
javac --release 17 -Xlint:all,-processing,-classfile,-path -Werror -d "$out/spark" \
  -cp "$jar:$spark_jar:$out/classes:$junit:$spark_jars/*" $(find jvm/java/spark/src/test/java -name '*.java')
# The module openings Spark's own launcher gives the JVM (Spark 4 on Java 17).
opens=(-XX:+IgnoreUnrecognizedVMOptions)
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
  java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar; do
  opens+=("--add-opens=java.base/$p=ALL-UNNAMED")
done
SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1} java "${opens[@]}" -Djdk.reflect.useDirectMethodHandle=false \
  -Dio.netty.tryReflectionSetAccessible=true "${properties[@]}" \
  -cp "$junit:$jar:$spark_jar:$out/classes:$out/spark:jvm/java/spark/src/test/resources:$spark_jars/*" \
  org.junit.platform.console.ConsoleLauncher \
  --disable-banner --details=tree --fail-if-no-tests --scan-class-path "$out/spark"
echo "java tests: $((SECONDS - started)) s"
