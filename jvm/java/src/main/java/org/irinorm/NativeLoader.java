package org.irinorm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the native library: the one the jar carries for this platform (copied once to a
 * temporary file, since a library cannot be loaded from inside a jar), else {@code
 * irinorm_jni} from {@code java.library.path}; failing both, an {@link UnsatisfiedLinkError}
 * that names the platform and where it looked.
 */
final class NativeLoader {
    /** The library's name, as {@link System#loadLibrary} takes it. */
    static final String LIBRARY = "irinorm_jni";

    private NativeLoader() {}

    /** Loads the library (called once, by {@link Native}'s initializer). */
    static void load() {
        String platform = platform();
        String file = System.mapLibraryName(LIBRARY);
        String resource = "/org/irinorm/native/" + platform + "/" + file;
        if (NativeLoader.class.getResource(resource) != null) {
            loadFromJar(resource, file);
            return;
        }
        try {
            System.loadLibrary(LIBRARY);
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError missing = new UnsatisfiedLinkError(missingMessage(platform, resource, file));
            missing.initCause(e);
            throw missing;
        }
    }

    /** What to say when neither the jar nor {@code java.library.path} has the library. */
    static String missingMessage(String platform, String resource, String file) {
        return "irinorm: no native library for this platform, " + platform
                + " (os.name=" + System.getProperty("os.name")
                + ", os.arch=" + System.getProperty("os.arch") + "): the jar has no "
                + resource.substring(1) + " and java.library.path ("
                + System.getProperty("java.library.path") + ") has no " + file
                + "; build the jar on this platform (scripts/build-jar.sh)";
    }

    /** The platform as the jar names its folders: {@code linux-x86_64}, {@code macos-aarch64}. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            os = "macos";
        } else if (os.startsWith("windows")) {
            os = "windows";
        } else {
            os = os.replaceAll("[^a-z0-9]", "");
        }
        switch (arch) {
            case "amd64":
            case "x86_64":
                arch = "x86_64";
                break;
            case "arm64":
            case "aarch64":
                arch = "aarch64";
                break;
            default:
                arch = arch.replaceAll("[^a-z0-9_]", "");
        }
        return os + "-" + arch;
    }

    /** Copies the jar's library to a temporary file and loads it from there. */
    private static void loadFromJar(String resource, String file) {
        Path copy = null;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            copy = Files.createTempFile("irinorm-", "-" + file);
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            System.load(copy.toAbsolutePath().toString());
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("irinorm: cannot copy " + resource.substring(1)
                    + " out of the jar to a temporary file: " + e);
        } finally {
            forget(copy);
        }
    }

    /**
     * Removes the temporary copy: at once where a loaded library's file may be removed
     * (its mapping stays), at exit elsewhere.
     */
    private static void forget(Path copy) {
        if (copy == null) {
            return;
        }
        try {
            Files.delete(copy);
        } catch (IOException e) {
            copy.toFile().deleteOnExit();
        }
    }
}
