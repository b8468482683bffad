package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys identical to the CLI's ({@code irinorm normalize}, same line, same options) for
 * every corpus line, at every level and form and with the crawler profile, through both
 * {@link Normalizer#normalize} and {@link Normalizer#normalizeAll}: one CLI run and one
 * batch per configuration.
 */
class AgreementTest {
    static Stream<String> configurations() {
        List<String> all = new ArrayList<>();
        for (String level : List.of("string", "syntax", "scheme")) {
            for (String form : List.of("uri", "iri", "surt")) {
                all.add("--level " + level + " --form " + form);
            }
        }
        for (String form : List.of("uri", "iri", "surt")) {
            all.add("--profile crawler --form " + form);
        }
        return all.stream();
    }

    static Stream<String> switches() {
        return Stream.of(
                "--drop-fragment",
                "--nfc --form iri",
                "--base http://base.example/a/b?q",
                "--strict",
                "--absolute",
                "--form surt --surt-scheme",
                "--level syntax --drop-fragment --form iri",
                "--profile wayback",
                "--profile w3lib");
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void everyCorpusLineAgrees(String options) throws Exception {
        Path file = Cli.allRecords();
        assertTrue(Cli.records(file).size() > 1000, "the corpora are there");
        check(file, options);
    }

    @ParameterizedTest
    @MethodSource("switches")
    void switchesAgreeOnTheSample(String options) throws Exception {
        check(Cli.repo().resolve("corpora/sample.txt"), options);
    }

    @Test
    void aRulesFileAgrees(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("my rules.toml");
        Files.writeString(rules, "version = 1\n[[rule]]\nkind = \"drop-params\"\nnames = [\"utm_*\", \"id\"]\n"
                + "[[rule]]\nkind = \"sort-params\"\n", StandardCharsets.UTF_8);
        Path sample = Cli.repo().resolve("corpora/sample.txt");
        List<String> records = Cli.records(sample);
        List<String> want = Cli.keys(sample, List.of("--rules", rules.toString()));
        try (Normalizer n = Normalizer.builder().rules(rules.toString()).build()) {
            assertEquals(want, Arrays.asList(n.normalizeAll(records.toArray(new String[0]))));
        }
        // The rules changed something, or this would not tell a file that was ignored.
        assertNotEquals(Cli.keys(sample, List.of()), want);
    }

    /** Both calls of a normalizer of {@code options} give the CLI's key of every line. */
    private static void check(Path file, String options) throws Exception {
        List<String> records = Cli.records(file);
        List<String> want = Cli.keys(file, Arrays.asList(options.split(" ")));
        assertEquals(records.size(), want.size(), "a key per record");
        try (Normalizer n = Normalizer.fromOptions(options)) {
            String[] batch = n.normalizeAll(records.toArray(new String[0]));
            int wrong = 0;
            StringBuilder shown = new StringBuilder();
            for (int i = 0; i < records.size(); i++) {
                String one = n.normalize(records.get(i));
                boolean same = java.util.Objects.equals(want.get(i), batch[i])
                        && java.util.Objects.equals(want.get(i), one);
                if (!same && wrong++ < 5) {
                    shown.append("\n  ").append(records.get(i)).append(": CLI ").append(want.get(i))
                            .append(", batch ").append(batch[i]).append(", one ").append(one);
                }
            }
            assertEquals(0, wrong, options + ": keys differ from the CLI's" + shown);
        }
    }
}
