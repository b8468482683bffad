package org.irinorm;

/**
 * The native methods of the Rust library (the crate {@code irinorm-jvm}), loaded once per
 * class loader by {@link NativeLoader}. Every method is a thin entry over the library; none
 * lets a Rust panic reach the JVM.
 */
final class Native {
    static {
        NativeLoader.load();
    }

    private Native() {}

    /** A normalizer of these command-line key options; its handle. */
    static native long create(String[] arguments);

    /** Frees a handle's normalizer (0: none). */
    static native void free(long handle);

    /** The key of {@code url}, or null. */
    static native String normalize(long handle, String url);

    /** Writes the key of each {@code urls[i]} to {@code keys[i]} (same length, all null). */
    static native void normalizeAll(long handle, String[] urls, String[] keys);

    /** The explained record as a JSON object, or null. */
    static native String explain(long handle, String url);

    /** The version of the keys. */
    static native int keyVersion();

    /** The library's key options, {@code name<TAB>kind} each. */
    static native String[] keyOptions();

    /** The records of a file's bytes, as the command line reads them. */
    static native String[] readRecords(byte[] data);
}
