package org.irinorm;

import java.nio.charset.StandardCharsets;

/**
 * The per-thread arrays that records and keys cross JNI in: for a batch ({@link
 * Native#normalizePacked}), the records' UTF-16 units in one {@code char[]} with their end
 * offsets, the keys' UTF-8 in one {@code byte[]} with theirs; for one record ({@link
 * Native#normalizeInto}), its key's UTF-8 in the same {@code byte[]}. An offset {@code e < 0} is the end {@code -e - 1} of a
 * null record or key. Records are packed in chunks that fit the arrays, so a thread keeps
 * at most a few hundred kilobytes; a record larger than that gets arrays of its own.
 */
final class Packed {
    private static final int CHARS = 1 << 16;
    private static final int RECORDS = 1024;
    private static final int BYTES = 1 << 17;
    private static final ThreadLocal<Packed> LOCAL = ThreadLocal.withInitial(Packed::new);

    private char[] chars = new char[CHARS];
    private final int[] ends = new int[RECORDS];
    private byte[] out = new byte[BYTES];
    private final int[] outEnds = new int[RECORDS];

    private Packed() {}

    /** Writes the key of each of {@code urls} at the same index of {@code keys}. */
    static void keys(long handle, String[] urls, String[] keys) {
        Packed p = LOCAL.get();
        for (int i = 0; i < urls.length; ) {
            int count = p.pack(urls, i);
            p.keyChunk(handle, count, keys, i);
            i += count;
        }
        p.forgetLarge();
    }

    /** The key of one record (not null), through {@link Native#normalizeInto}. */
    static String key(long handle, String url) {
        Packed p = LOCAL.get();
        int n;
        while ((n = Native.normalizeInto(handle, url, p.out)) < -1) {
            p.out = new byte[-n - 2];
        }
        String key = n < 0 ? null : new String(p.out, 0, n, StandardCharsets.UTF_8);
        p.forgetLarge();
        return key;
    }

    /** Packs records from {@code start} until the arrays are full (one at least); their count. */
    private int pack(String[] urls, int start) {
        int used = 0;
        int i = start;
        while (i < urls.length && i - start < RECORDS) {
            String s = urls[i];
            int len = s == null ? 0 : s.length();
            if (used + len > chars.length) {
                if (i > start) {
                    break;
                }
                chars = new char[len];
            }
            if (s != null) {
                s.getChars(0, len, chars, used);
            }
            used += len;
            ends[i - start] = s == null ? -used - 1 : used;
            i++;
        }
        return i - start;
    }

    /** Keys the {@code count} records packed into {@code keys} from {@code at}. */
    private void keyChunk(long handle, int count, String[] keys, int at) {
        for (int from = 0; from < count; ) {
            int done = Native.normalizePacked(handle, chars, ends, from, count, out, outEnds);
            int start = 0;
            for (int k = from; k < done; k++) {
                int e = outEnds[k];
                int end = e < 0 ? -e - 1 : e;
                keys[at + k] = e < 0 ? null : new String(out, start, end - start, StandardCharsets.UTF_8);
                start = end;
            }
            if (done == from) {
                out = new byte[out.length * 2];
            }
            from = done;
        }
    }

    /** Gives back arrays grown for a large record. */
    private void forgetLarge() {
        if (chars.length > CHARS) {
            chars = new char[CHARS];
        }
        if (out.length > BYTES) {
            out = new byte[BYTES];
        }
    }
}
