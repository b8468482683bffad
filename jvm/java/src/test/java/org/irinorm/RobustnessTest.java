package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No input crashes the JVM or throws: nulls, strings that are not Unicode (lone
 * surrogates), NUL characters, characters beyond the BMP, 1 MB strings and random strings
 * give a key or null, the same through every call; a closed normalizer refuses use.
 */
class RobustnessTest {
    private static final String[] OPTIONS = {"", "--profile crawler --form surt", "--level string --form iri", "--strict"};

    @Test
    void nullsHaveNoKey() {
        try (Normalizer n = Normalizer.fromOptions("")) {
            assertNull(n.normalize(null));
            assertNull(n.explain(null));
            assertArrayEquals(new String[] {"http://a/", null, "http://b/"}, n.normalizeAll(new String[] {"HTTP://a", null, "http://B"}));
            assertArrayEquals(new String[0], n.normalizeAll(new String[0]));
            assertThrows(NullPointerException.class, () -> n.normalizeAll(null));
        }
    }

    @Test
    void loneSurrogatesAreInvalidRecords() {
        String[] lone = {"http://a/\uD800", "http://a/\uDC00b", "http://\uDBFF.example/", "\uD83D", "http://a/?q=\uDE00\uD83D"};
        try (Normalizer n = Normalizer.fromOptions("--form iri")) {
            for (String s : lone) {
                assertNull(n.normalize(s), s);
                assertNull(n.explain(s), s);
            }
            assertArrayEquals(new String[lone.length], n.normalizeAll(lone));
            // A well-formed pair is a character, as UTF-8 on the command line.
            assertEquals("http://a/%F0%9F%98%80", Normalizer.fromOptions("").normalize("http://a/\uD83D\uDE00"));
            assertEquals("http://a/\uD83D\uDE00", n.normalize("http://a/\uD83D\uDE00"));
        }
    }

    @Test
    void unusualCharactersGetTheCommandLinesKeys(@TempDir Path dir) throws Exception {
        List<String> lines = List.of("http://a/b\u0000c", "http://a/\u00e9\uD83D\uDE00", "\u0000", "", " ", "http://[::1]:0/\u202E",
                "http://xn--bcher-kva.example/\uFFFF", "http://a/\u0085", "\uFEFFhttp://a/");
        Path file = dir.resolve("lines.txt");
        Files.writeString(file, "x\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        for (String options : OPTIONS) {
            List<String> want = Cli.keys(file, options.isEmpty() ? List.of() : List.of(options.split(" "))).subList(1, lines.size() + 1);
            try (Normalizer n = Normalizer.fromOptions(options)) {
                for (int i = 0; i < lines.size(); i++) {
                    assertEquals(want.get(i), n.normalize(lines.get(i)), options + ": " + lines.get(i));
                }
            }
        }
    }

    @Test
    void hugeStringsAreKeyedOrRefused() {
        try (Normalizer n = Normalizer.fromOptions("--profile crawler")) {
            String path = "a/".repeat(500_000);
            String key = n.normalize("HTTP://Example.com/" + path);
            assertEquals("http://example.com/" + path, key);
            String[] keys = n.normalizeAll(new String[] {"http://a/" + "\u00e9".repeat(1 << 20), "x".repeat(1 << 20), "\uD800".repeat(1 << 20)});
            assertTrue(keys[0] == null || keys[0].startsWith("http://a/%C3%A9"), "a key or null");
            assertNull(keys[2]);
            assertNotNull(n.explain("http://a/" + "b".repeat(1 << 20)));
        }
    }

    /** Keys longer than the records, many to a batch: the batch is keyed in several rounds. */
    @Test
    void batchesWhoseKeysOutgrowTheirBufferAgree() {
        try (Normalizer n = Normalizer.fromOptions("")) {
            String[] urls = new String[3000];
            for (int i = 0; i < urls.length; i++) {
                urls[i] = i % 7 == 0 ? null : "http://a/" + i + "\u00e9".repeat(i % 500) + (i % 11 == 0 ? "\uD800" : "");
            }
            String[] keys = n.normalizeAll(urls);
            long bytes = 0;
            for (int i = 0; i < urls.length; i++) {
                assertEquals(n.normalize(urls[i]), keys[i], "record " + i);
                bytes += keys[i] == null ? 0 : keys[i].length();
            }
            assertTrue(bytes > 1 << 20, "the keys outgrow the 128 KiB buffer many times: " + bytes);
        }
    }

    /** Random strings of every kind of UTF-16 unit: each call agrees with the others. */
    @Test
    void randomStringsNeverCrash() {
        Random random = new Random(40);
        for (String options : OPTIONS) {
            try (Normalizer n = Normalizer.fromOptions(options)) {
                List<String> inputs = new ArrayList<>();
                for (int i = 0; i < 20_000; i++) {
                    inputs.add(randomString(random));
                }
                String[] batch = n.normalizeAll(inputs.toArray(new String[0]));
                for (int i = 0; i < inputs.size(); i++) {
                    String s = inputs.get(i);
                    assertEquals(batch[i], n.normalize(s), s);
                    if (i % 50 == 0) {
                        String json = n.explain(s);
                        assertTrue(json == null || json.startsWith("{\"input\":"), s);
                    }
                }
            }
        }
    }

    private static String randomString(Random random) {
        String[] pieces = {"http://", "https://", "HTTP://", "a", "B", ".", "/", "..", "%", "%2", "%41", "?", "#", "@", ":", "[", "]",
            "::1", "xn--", "\u00e9", "\u0130", "\u202e", "\u0000", " ", "\t", "\uD800", "\uDC00", "\uD83D\uDE00", "\uFFFD", "\u3002", "80"};
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(24);
        for (int i = 0; i < n; i++) {
            if (random.nextInt(8) == 0) {
                s.append((char) random.nextInt(0x10000));
            } else {
                s.append(pieces[random.nextInt(pieces.length)]);
            }
        }
        return s.toString();
    }

    @Test
    void explainGivesTheKeyAndItsSteps() {
        try (Normalizer n = Normalizer.fromOptions("")) {
            String json = n.explain("HTTP://a/b");
            assertEquals("http://a/b", Json.stringMember(json, "key"));
            assertEquals("HTTP://a/b", Json.stringMember(json, "input"));
            assertTrue(json.contains("\"rule\":\"case\""), json);
            assertNull(Json.stringMember(n.explain("%zz:"), "key"));
            assertTrue(n.explain("%zz:").contains("\"error\":{\"kind\":\"syntax\""));
        }
    }

    @Test
    void aClosedNormalizerRefusesUse() {
        Normalizer n = Normalizer.fromOptions("");
        n.close();
        n.close();
        assertThrows(IllegalStateException.class, () -> n.normalize("http://a/"));
        assertThrows(IllegalStateException.class, () -> n.normalizeAll(new String[] {"http://a/"}));
        // A shared one is never freed: its close does nothing.
        Normalizer shared = Normalizer.shared("--form iri");
        shared.close();
        assertEquals("http://a/", shared.normalize("http://A"));
        assertTrue(shared == Normalizer.shared("--form iri"));
    }
}
