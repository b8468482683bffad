package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The builder's setters are the library's key options (its one table, {@code KEY_OPTIONS}),
 * and options that make no normalizer are refused with the command line's message.
 */
class OptionsTest {
    /** camelCase of a kebab-case name. */
    private static String camel(String name) {
        StringBuilder out = new StringBuilder();
        for (String part : name.split("-")) {
            out.append(out.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }

    @Test
    void theBuildersSettersAreTheTablesOptions() throws Exception {
        Set<String> setters = new TreeSet<>();
        for (Method m : Normalizer.Builder.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.getName().equals("build")) {
                setters.add(m.getName());
            }
        }
        Set<String> options = new TreeSet<>();
        for (String row : Normalizer.keyOptions()) {
            String[] cells = row.split("\t");
            String name = cells[0];
            options.add(camel(name));
            Class<?> type = cells[1].equals("flag") ? boolean.class : String.class;
            Method setter = Normalizer.Builder.class.getMethod(camel(name), type);
            assertEquals(Normalizer.Builder.class, setter.getReturnType(), name);
            // The setter sets that option, by its command-line name.
            Normalizer.Builder b = Normalizer.builder();
            setter.invoke(b, type == boolean.class ? (Object) true : "x");
            List<String> want = type == boolean.class ? List.of("--" + name) : List.of("--" + name, "x");
            assertEquals(want, b.arguments(), name);
        }
        assertEquals(options, setters, "the builder's setters");
        assertTrue(options.size() >= 10, "the table is read: " + options);
    }

    @Test
    void theBuilderAndTheOptionsTextAgree() {
        String[] urls = {"HTTP://www.Example.COM:80/a/./b?utm_source=x&b=1#f", "http://bücher.example/ä"};
        try (Normalizer a = Normalizer.builder().profile("crawler").form("surt").dropFragment(true).build();
                Normalizer b = Normalizer.fromOptions("  --profile crawler\t--form=surt --drop-fragment ")) {
            assertEquals(Arrays.asList(a.normalizeAll(urls)), Arrays.asList(b.normalizeAll(urls)));
        }
        // An option set back to null (a switch to false) is unset.
        Normalizer.Builder b = Normalizer.builder().level("syntax").level(null).nfc(true).nfc(false);
        assertEquals(List.of(), b.arguments());
    }

    @Test
    void badOptionsGetTheCommandLinesMessage() throws Exception {
        List<String> bad = List.of(
                "--level protocol",
                "--level scheme --profile crawler",
                "--profile nope",
                "--base a/b",
                "--profile w3lib --nfc",
                "--rules /nonexistent/rules.toml");
        for (String options : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Normalizer.fromOptions(options));
            String cli = Cli.refusal(new ArrayList<>(Arrays.asList(options.split(" "))));
            assertTrue(cli.contains(e.getMessage()), options + ": " + e.getMessage() + " vs the CLI's " + cli);
        }
        for (String options : List.of("--frobnicate", "--level", "--nfc=yes", "--nfc --nfc", "level scheme")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Normalizer.fromOptions(options));
            assertTrue(e.getMessage().contains("--") || e.getMessage().contains("level"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Normalizer.builder().level("exact").build());
        assertThrows(IllegalArgumentException.class, () -> Normalizer.builder().base("http://a/\uD800").build());
        assertThrows(NullPointerException.class, () -> Normalizer.fromOptions(null));
    }

    @Test
    void theKeyVersionIsTheLibrarys() throws Exception {
        String lib = java.nio.file.Files.readString(Cli.repo().resolve("src/lib.rs"));
        var m = java.util.regex.Pattern.compile("pub const KEY_VERSION: u32 = (\\d+);").matcher(lib);
        assertTrue(m.find(), "KEY_VERSION in src/lib.rs");
        assertEquals(Integer.parseInt(m.group(1)), Normalizer.KEY_VERSION);
    }
}
