package org.irinorm.bench;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.irinorm.Normalizer;

/**
 * The cost of a key in Java, per record, over the lines of a file of real URLs: {@code
 * Normalizer.normalize} one call a record, {@code Normalizer.normalizeAll} over batches, and
 * the JDK's own {@code new URI(s).normalize().toString()} on the same URLs. Each is run for
 * a number of rounds after a warm-up; the median round is reported, with the fastest and
 * slowest.
 *
 * <pre>
 * java -cp target/java/irinorm-VERSION.jar:target/java/test/classes org.irinorm.bench.NormalizeBench \
 *     FILE [OPTIONS [ROUNDS [BATCH]]]
 * </pre>
 */
public final class NormalizeBench {
    private NormalizeBench() {}

    /**
     * Runs the benchmark.
     *
     * @param args the file of URLs; the key options (default {@code ""}); the rounds
     *     (default 15); the batch size (default 1024)
     * @throws Exception when the file cannot be read
     */
    public static void main(String[] args) throws Exception {
        List<String> urls = Normalizer.readRecords(Files.readAllBytes(Path.of(args[0])));
        String options = args.length > 1 ? args[1] : "";
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 1024;
        String[] all = urls.toArray(new String[0]);
        List<String[]> batches = new ArrayList<>();
        for (int i = 0; i < all.length; i += batch) {
            batches.add(Arrays.copyOfRange(all, i, Math.min(all.length, i + batch)));
        }
        System.out.printf("%d URLs of %s, options \"%s\", %d rounds, batches of %d%n", all.length, args[0], options, rounds, batch);
        try (Normalizer n = Normalizer.fromOptions(options)) {
            report("irinorm normalize (one call a record)", all.length, rounds, () -> perCall(n, all));
            report("irinorm normalizeAll (per record)", all.length, rounds, () -> batched(n, batches));
            report("java.net.URI(s).normalize().toString()", all.length, rounds, () -> jdk(all));
            // Once more, now that the JIT compiler has long finished with it.
            report("irinorm normalize (again)", all.length, rounds, () -> perCall(n, all));
        }
    }

    private static int perCall(Normalizer n, String[] all) {
        int sum = 0;
        for (String s : all) {
            String k = n.normalize(s);
            sum += k == null ? 0 : k.length();
        }
        return sum;
    }

    private static int batched(Normalizer n, List<String[]> batches) {
        int sum = 0;
        for (String[] b : batches) {
            for (String k : n.normalizeAll(b)) {
                sum += k == null ? 0 : k.length();
            }
        }
        return sum;
    }

    private static int jdk(String[] all) {
        int sum = 0;
        for (String s : all) {
            try {
                sum += new URI(s).normalize().toString().length();
            } catch (URISyntaxException e) {
                sum += 0;
            }
        }
        return sum;
    }

    /** Runs {@code work} (over {@code records}) a warm-up then {@code rounds} times; prints ns a record. */
    private static void report(String name, int records, int rounds, java.util.function.IntSupplier work) {
        long sink = 0;
        long warmUntil = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < warmUntil) {
            sink += work.getAsInt();
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            sink += work.getAsInt();
            ns[r] = (System.nanoTime() - t0) / (double) records;
        }
        Arrays.sort(ns);
        System.out.printf("%-42s median %7.1f ns/record (min %.1f, max %.1f)  [%d]%n", name, ns[rounds / 2], ns[0], ns[rounds - 1], sink % 10);
    }
}
