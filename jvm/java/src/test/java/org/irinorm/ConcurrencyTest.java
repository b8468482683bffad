package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** One normalizer shared by 8 threads gives each the keys one thread alone gets. */
class ConcurrencyTest {
    @Test
    void eightThreadsShareOneNormalizer() throws Exception {
        List<String> records = Cli.records(Cli.allRecords());
        String[] all = records.toArray(new String[0]);
        try (Normalizer n = Normalizer.fromOptions("--profile crawler --form surt")) {
            List<String> want = Arrays.asList(n.normalizeAll(all));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<List<String>>> runs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    boolean batch = t % 2 == 0;
                    int offset = t * all.length / 8;
                    runs.add(pool.submit(() -> keysFrom(n, all, offset, batch)));
                }
                for (Future<List<String>> run : runs) {
                    assertEquals(want, run.get());
                }
            } finally {
                pool.shutdown();
            }
        }
    }

    /**
     * The keys of every record, in order, keyed starting at {@code offset} (so the threads
     * work on different records at once), in batches or one by one.
     */
    private static List<String> keysFrom(Normalizer n, String[] all, int offset, boolean batch) {
        String[] keys = new String[all.length];
        for (int done = 0; done < all.length; ) {
            int start = (offset + done) % all.length;
            int len = Math.min(997, Math.min(all.length - start, all.length - done));
            if (batch) {
                System.arraycopy(n.normalizeAll(Arrays.copyOfRange(all, start, start + len)), 0, keys, start, len);
            } else {
                for (int i = start; i < start + len; i++) {
                    keys[i] = n.normalize(all[i]);
                }
            }
            done += len;
        }
        return Arrays.asList(keys);
    }
}
