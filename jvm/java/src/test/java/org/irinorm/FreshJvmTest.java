package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar as shipped ({@code irinorm.jar}), in a fresh JVM with no {@code java.library.path}
 * set: it loads its own native library; and a jar without one says which platform lacks it.
 */
class FreshJvmTest {
    /** What the fresh JVM runs: prints a key and the version. */
    public static final class Main {
        public static void main(String[] args) {
            try (Normalizer n = Normalizer.fromOptions("--profile crawler --form surt")) {
                System.out.println(n.normalize("HTTP://www.Example.com:80/a/./b?utm_source=x"));
                System.out.println(Normalizer.KEY_VERSION);
            }
        }
    }

    private static Path jar() {
        return Path.of(System.getProperty("irinorm.jar"));
    }

    private static Path testClasses() throws Exception {
        return Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static Process run(Path jar) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cp = List.of(jar.toString(), testClasses().toString());
        ProcessBuilder b = new ProcessBuilder(java, "-cp", String.join(File.pathSeparator, cp), Main.class.getName());
        b.environment().remove("LD_LIBRARY_PATH");
        b.environment().remove("JAVA_TOOL_OPTIONS");
        b.environment().remove("_JAVA_OPTIONS");
        return b.start();
    }

    @Test
    void theJarLoadsItsOwnLibrary() throws Exception {
        Process p = run(jar());
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), err);
        String want;
        try (Normalizer n = Normalizer.fromOptions("--profile crawler --form surt")) {
            want = n.normalize("HTTP://www.Example.com:80/a/./b?utm_source=x") + "\n" + Normalizer.KEY_VERSION + "\n";
        }
        assertEquals(want, out);
    }

    @Test
    void aJarWithoutTheLibraryNamesThePlatform(@TempDir Path dir) throws Exception {
        Path stripped = dir.resolve("irinorm-no-native.jar");
        copyWithout(jar(), stripped, "org/irinorm/native/");
        Process p = run(stripped);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertNotEquals(0, p.waitFor());
        assertTrue(err.contains("UnsatisfiedLinkError: irinorm: no native library for this platform, " + NativeLoader.platform()), err);
        assertTrue(err.contains("os.arch=" + System.getProperty("os.arch")), err);
        assertTrue(err.contains("java.library.path"), err);
    }

    /** A copy of a jar without the entries under {@code prefix}. */
    private static void copyWithout(Path from, Path to, String prefix) throws IOException {
        try (JarFile in = new JarFile(from.toFile()); JarOutputStream out = new JarOutputStream(new FileOutputStream(to.toFile()))) {
            List<JarEntry> entries = new ArrayList<>(in.stream().toList());
            for (JarEntry e : entries) {
                if (e.getName().startsWith(prefix)) {
                    continue;
                }
                out.putNextEntry(new JarEntry(e.getName()));
                in.getInputStream(e).transferTo(out);
                out.closeEntry();
            }
        }
    }
}
