package org.irinorm;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A configured irinorm normalizer: it turns IRIs and URIs into canonical comparison keys,
 * byte for byte the keys {@code irinorm normalize} writes for the same lines and options.
 *
 * <pre>{@code
 * try (Normalizer n = Normalizer.builder().profile("crawler").form("surt").build()) {
 *     String key = n.normalize("HTTP://www.Example.com:80/a/./b?utm_source=x");
 * }
 * }</pre>
 *
 * <p>An instance is thread-safe: one can be shared by every thread of a pool. A record that
 * is not an IRI (or a string that is not Unicode text, holding a lone surrogate) has no key:
 * {@code null}, never an exception. Options that make no normalizer are refused with an
 * {@link IllegalArgumentException} carrying the command line's message.
 *
 * <p>It holds native memory: {@link #close()} frees it; an instance that is never closed is
 * freed once unreachable (through a {@link Cleaner}). Do not close an instance while other
 * threads still use it; after {@code close}, its methods throw {@link IllegalStateException}.
 */
public final class Normalizer implements AutoCloseable {
    /**
     * The version of the keys ({@code irinorm::KEY_VERSION}): it changes whenever any key
     * changes. Keys of different versions must not be compared.
     */
    public static final int KEY_VERSION = Native.keyVersion();

    private static final Cleaner CLEANER = Cleaner.create();
    private static final Map<String, Normalizer> SHARED = new ConcurrentHashMap<>();

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;
    private final boolean shared;

    private Normalizer(List<String> arguments, boolean shared) {
        this.handle = new Handle(Native.create(arguments.toArray(new String[0])));
        this.cleanable = CLEANER.register(this, handle);
        this.shared = shared;
    }

    /**
     * A builder whose setters are the key options of {@code irinorm normalize}, in camelCase.
     *
     * @return a builder with every option unset (the command line's defaults)
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A normalizer of key options written as on the command line, separated by white space:
     * {@code "--profile crawler --form surt"} ({@code --name=value} is taken too).
     *
     * @param options the key options of {@code irinorm normalize}; empty for the defaults
     * @return the normalizer
     * @throws IllegalArgumentException with the command line's message, for options that
     *     make no normalizer
     */
    public static Normalizer fromOptions(String options) {
        return new Normalizer(split(options), false);
    }

    /**
     * The one normalizer of these options in this class loader, made on first use and
     * never freed: what a plugin or a Spark executor shares among its threads. Its
     * {@link #close()} does nothing.
     *
     * @param options the key options, as {@link #fromOptions(String)} takes them
     * @return the shared normalizer
     * @throws IllegalArgumentException as {@link #fromOptions(String)} does
     */
    public static Normalizer shared(String options) {
        Normalizer n = SHARED.get(options);
        return n != null ? n : SHARED.computeIfAbsent(options, o -> new Normalizer(split(o), true));
    }

    private static List<String> split(String options) {
        String trimmed = Objects.requireNonNull(options, "options").strip();
        return trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("\\s+"));
    }

    /**
     * The key of one record.
     *
     * @param url the record: an IRI or URI, trimmed and repaired as the command line does
     *     unless the options are strict
     * @return its key; {@code null} when {@code url} is null, is not an IRI, or holds a lone
     *     surrogate
     */
    public String normalize(String url) {
        long h = handle.get();
        try {
            return url == null ? null : Packed.key(h, url);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The keys of many records, with one call into the native library per chunk of up to
     * 1,024 records (faster per record than {@link #normalize} one by one).
     *
     * @param urls the records (null elements allowed)
     * @return the key of each record at its index, {@code null} where {@link #normalize}
     *     gives null
     */
    public String[] normalizeAll(String[] urls) {
        String[] keys = new String[Objects.requireNonNull(urls, "urls").length];
        long h = handle.get();
        try {
            Packed.keys(h, urls, keys);
        } finally {
            Reference.reachabilityFence(this);
        }
        return keys;
    }

    /**
     * The key of one record with every step that changed it, its error and its warnings: the
     * JSON object of {@code irinorm normalize --explain --output jsonl} without the file and
     * line ({@code {"input":…,"key":…,"steps":[…],"warnings":[…]}}, or {@code "error"} in
     * place of the key for an invalid record).
     *
     * @param url the record
     * @return the JSON text; {@code null} when {@code url} is null or holds a lone surrogate
     */
    public String explain(String url) {
        long h = handle.get();
        try {
            return Native.explain(h, url);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The records of a file's bytes as the command line reads them: lines ending with a
     * line feed (a carriage return before it dropped, a leading byte-order mark skipped),
     * octets that are not UTF-8 written {@code %XX}.
     *
     * @param data the file's bytes
     * @return its records
     */
    public static List<String> readRecords(byte[] data) {
        return List.of(Native.readRecords(Objects.requireNonNull(data, "data")));
    }

    /**
     * The key options of the library, {@code name<TAB>kind} each (kind: {@code flag},
     * {@code choice}, {@code text} or {@code file}), in its order: the names of the
     * {@link Builder}'s setters, in kebab-case.
     *
     * @return the options
     */
    public static List<String> keyOptions() {
        return List.of(Native.keyOptions());
    }

    /** Frees the native memory (once; later calls do nothing). Does nothing on a shared one. */
    @Override
    public void close() {
        if (!shared) {
            cleanable.clean();
        }
    }

    /** The native handle, freed once, by {@link #close()} or by the {@link Cleaner}. */
    private static final class Handle implements Runnable {
        private volatile long value;

        Handle(long value) {
            this.value = value;
        }

        long get() {
            long v = value;
            if (v == 0) {
                throw new IllegalStateException("this irinorm Normalizer is closed");
            }
            return v;
        }

        @Override
        public void run() {
            long v = value;
            value = 0;
            Native.free(v);
        }
    }

    /**
     * Key options set one by one; each setter is named after an option of {@code irinorm
     * normalize} (camelCase of its kebab-case name) and takes what it takes. An option set to
     * {@code null} (or a switch set to {@code false}) is unset again.
     */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();

        private Builder() {}

        /**
         * {@code --level}: the rung of the comparison ladder.
         *
         * @param level {@code string}, {@code syntax}, {@code scheme} or {@code protocol}
         * @return this builder
         */
        public Builder level(String level) {
            return value("level", level);
        }

        /**
         * {@code --form}: the form of the key.
         *
         * @param form {@code uri}, {@code iri} or {@code surt}
         * @return this builder
         */
        public Builder form(String form) {
            return value("form", form);
        }

        /**
         * {@code --profile}: a built-in profile ({@code crawler}, {@code crawler@1},
         * {@code wayback}, {@code w3lib}, …).
         *
         * @param name the profile's name
         * @return this builder
         */
        public Builder profile(String name) {
            return value("profile", name);
        }

        /**
         * {@code --rules}: protocol-rung rules from a TOML file, read when the normalizer
         * is built.
         *
         * @param path the file's path
         * @return this builder
         */
        public Builder rules(String path) {
            return value("rules", path);
        }

        /**
         * {@code --drop-fragment}: remove the fragment.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder dropFragment(boolean on) {
            return flag("drop-fragment", on);
        }

        /**
         * {@code --nfc}: apply Unicode NFC first.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder nfc(boolean on) {
            return flag("nfc", on);
        }

        /**
         * {@code --base}: resolve relative references against this absolute IRI first.
         *
         * @param iri the base
         * @return this builder
         */
        public Builder base(String iri) {
            return value("base", iri);
        }

        /**
         * {@code --strict}: no trimming and no repairs.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder strict(boolean on) {
            return flag("strict", on);
        }

        /**
         * {@code --absolute}: reject relative references.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder absolute(boolean on) {
            return flag("absolute", on);
        }

        /**
         * {@code --surt-scheme}: with the {@code surt} form, write the scheme too.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder surtScheme(boolean on) {
            return flag("surt-scheme", on);
        }

        /**
         * The normalizer of the options set.
         *
         * @return a new normalizer
         * @throws IllegalArgumentException with the command line's message, for options that
         *     make no normalizer
         */
        public Normalizer build() {
            return new Normalizer(arguments(), false);
        }

        /** The options set, as command-line arguments. */
        List<String> arguments() {
            List<String> args = new ArrayList<>();
            values.forEach((name, value) -> {
                args.add("--" + name);
                if (value != null) {
                    args.add(value);
                }
            });
            return args;
        }

        private Builder value(String name, String value) {
            values.remove(name);
            if (value != null) {
                values.put(name, value);
            }
            return this;
        }

        private Builder flag(String name, boolean on) {
            values.remove(name);
            if (on) {
                values.put(name, null);
            }
            return this;
        }
    }
}
