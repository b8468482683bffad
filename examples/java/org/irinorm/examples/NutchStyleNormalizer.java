package org.irinorm.examples;

import java.net.MalformedURLException;
import java.util.Map;
import org.irinorm.Normalizer;

/**
 * A URL normalizer in the shape of Apache Nutch's plugins: {@code normalize(url, scope)},
 * called once per record by every mapper thread, throwing {@link MalformedURLException} for
 * a URL that cannot be kept. Each scope may use its own key options; the normalizers are
 * shared by all threads ({@link Normalizer#shared(String)}), built once per JVM.
 *
 * <p>Written against irinorm's Java API only: an adapter to Nutch's interface is one class
 * that calls {@link #normalize(String, String)}.
 */
public final class NutchStyleNormalizer {
    /** The scope used when a scope has no options of its own. */
    public static final String DEFAULT_SCOPE = "default";

    private final Map<String, String> optionsByScope;

    /**
     * A normalizer with these key options per scope.
     *
     * @param optionsByScope key options ({@code "--profile crawler"}) by scope name; the
     *     entry {@value #DEFAULT_SCOPE} serves the other scopes
     */
    public NutchStyleNormalizer(Map<String, String> optionsByScope) {
        this.optionsByScope = Map.copyOf(optionsByScope);
        this.optionsByScope.values().forEach(Normalizer::shared);
    }

    /**
     * The normalized URL.
     *
     * @param url the URL as found
     * @param scope where it is normalized ({@code inject}, {@code outlink}, {@code fetcher}, …)
     * @return its irinorm key under the scope's options
     * @throws MalformedURLException when the URL has no key (it is not a valid IRI)
     */
    public String normalize(String url, String scope) throws MalformedURLException {
        String options = optionsByScope.getOrDefault(scope, optionsByScope.get(DEFAULT_SCOPE));
        String key = Normalizer.shared(options).normalize(url);
        if (key == null) {
            throw new MalformedURLException("not a valid IRI: " + url);
        }
        return key;
    }
}
