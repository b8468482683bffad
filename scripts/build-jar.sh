#!/usr/bin/env bash
# Builds the Java API's jars with the JDK's own tools (javac, jar), the native library
# inside:
#
#   target/java/irinorm-VERSION.jar        org.irinorm (Normalizer), no dependencies, with
#                                          the native library of this platform under
#                                          org/irinorm/native/OS-ARCH/
#   target/java/irinorm-spark-VERSION.jar  org.irinorm.spark (the Spark SQL function), built
#                                          when Spark's jars are found (SPARK_JARS, else
#                                          $SPARK_HOME/jars, else the jars of the pyspark of
#                                          $IRINORM_VENV or python/.venv)
#
#   scripts/build-jar.sh
#   SPARK_JARS=/opt/spark/jars scripts/build-jar.sh
#   IRINORM_JAR_PROFILE=release scripts/build-jar.sh   # another cargo profile
#
# The native library is the crate jvm/ (irinorm-jvm) built with the workspace's `wheel`
# profile (release, no debug info, stripped), as the Python package's is. Prints the jars'
# paths and sizes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
profile=${IRINORM_JAR_PROFILE:-wheel}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' jvm/Cargo.toml | head -n 1)
out=target/java
build=$out/build
rm -rf "$build" "$out"/irinorm-*.jar
mkdir -p "$build/core" "$build/spark"

case "$(uname -s)" in
  Linux) os=linux ext=so ;;
  Darwin) os=macos ext=dylib ;;
  *) echo "build-jar: unsupported system $(uname -s)" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) arch=$(uname -m) ;;
esac

echo "== cargo build -p irinorm-jvm (profile $profile; the release build takes minutes)"
cargo build --locked --profile "$profile" -p irinorm-jvm
case "$profile" in dev) dir=debug ;; *) dir=$profile ;; esac
native=$build/core/org/irinorm/native/$os-$arch
mkdir -p "$native"
cp "target/$dir/libirinorm_jni.$ext" "$native/"

echo "== javac, jar: irinorm-$version.jar"
javac --release 17 -Xlint:all -Werror -d "$build/core" $(find jvm/java/src/main/java -name '*.java')
mkdir -p "$build/core/META-INF/maven/org.irinorm/irinorm"
cp jvm/java/pom.xml "$build/core/META-INF/maven/org.irinorm/irinorm/pom.xml"
printf 'Automatic-Module-Name: org.irinorm\nImplementation-Title: irinorm\nImplementation-Version: %s\n' \
  "$version" > "$build/manifest.txt"
jar --create --file "$out/irinorm-$version.jar" --manifest "$build/manifest.txt" -C "$build/core" .
echo "jar: $out/irinorm-$version.jar ($(stat -c %s "$out/irinorm-$version.jar") bytes)"

# Spark's jars: where a Spark installation or the Python tests' pyspark has them.
spark_jars=${SPARK_JARS:-}
if [ -z "$spark_jars" ] && [ -n "${SPARK_HOME:-}" ] && [ -d "$SPARK_HOME/jars" ]; then
  spark_jars=$SPARK_HOME/jars
fi
if [ -z "$spark_jars" ]; then
  venv=${IRINORM_VENV:-$root/python/.venv}
  spark_jars=$(ls -d "$venv"/lib/python3*/site-packages/pyspark/jars 2>/dev/null | head -n 1 || true)
fi
if [ -z "$spark_jars" ] || [ ! -d "$spark_jars" ]; then
  echo "== irinorm-spark: skipped (no Spark jars: set SPARK_JARS or SPARK_HOME)"
  exit 0
fi
echo "== javac, jar: irinorm-spark-$version.jar (Spark from $spark_jars)"
# Where the Spark jars were, for scripts/test-java.sh.
echo "spark: $spark_jars" > "$build/spark-jars"
javac --release 17 -Xlint:all,-processing,-classfile,-path -Werror -d "$build/spark" \
  -cp "$build/core:$spark_jars/*" $(find jvm/java/spark/src/main/java -name '*.java')
mkdir -p "$build/spark/META-INF/maven/org.irinorm/irinorm-spark"
cp jvm/java/spark/pom.xml "$build/spark/META-INF/maven/org.irinorm/irinorm-spark/pom.xml"
printf 'Automatic-Module-Name: org.irinorm.spark\nImplementation-Title: irinorm-spark\nImplementation-Version: %s\n' \
  "$version" > "$build/manifest-spark.txt"
jar --create --file "$out/irinorm-spark-$version.jar" --manifest "$build/manifest-spark.txt" -C "$build/spark" .
echo "jar: $out/irinorm-spark-$version.jar ($(stat -c %s "$out/irinorm-spark-$version.jar") bytes)"
