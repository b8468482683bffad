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

    /**
     * Writes the key of {@code url} into {@code out} as UTF-8: its length; -1 when there is
     * none; {@code -n - 2} when {@code out} is shorter than its {@code n} bytes.
     */
    static native int normalizeInto(long handle, String url, byte[] out);

    /**
     * Keys records {@code from..to} packed in {@code chars} and {@code ends} into {@code out}
     * and {@code outEnds} (see {@link Packed}); the first record whose key did not fit.
     */
    static native int normalizePacked(long handle, char[] chars, int[] ends, int from, int to, byte[] out, int[] outEnds);

    /** The explained record as a JSON object, or null. */
    static native String explain(long handle, String url);

    /** The version of the keys. */
    static native int keyVersion();

    /** The library's key options, {@code name<TAB>kind} each. */
    static native String[] keyOptions();

    /** The records of a file's bytes, as the command line reads them. */
    static native String[] readRecords(byte[] data);
}
