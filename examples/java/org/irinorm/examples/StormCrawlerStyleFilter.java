package org.irinorm.examples;

import java.util.Set;
import org.irinorm.Normalizer;

/**
 * A URL filter in the shape of StormCrawler's: {@code filter(source, url)} returns the URL
 * to keep, normalized, or {@code null} to drop it. Here a URL is dropped when it has no key
 * (not a valid IRI), when its scheme is not one to crawl, or when its key was seen already
 * from the same source page.
 *
 * <p>Written against irinorm's Java API only; the normalizer is shared by every bolt
 * thread of the JVM.
 */
public final class StormCrawlerStyleFilter {
    private static final Set<String> CRAWLED = Set.of("http", "https");

    private final Normalizer normalizer;

    /**
     * A filter keying URLs with these key options.
     *
     * @param options key options, as {@link Normalizer#fromOptions(String)} takes them
     */
    public StormCrawlerStyleFilter(String options) {
        this.normalizer = Normalizer.shared(options);
    }

    /**
     * The URL to keep, or {@code null} to drop it.
     *
     * @param seenOnSource the keys of the source page's outlinks kept so far (this call adds
     *     the key it keeps)
     * @param url an outlink, absolute
     * @return its key, or {@code null}
     */
    public String filter(Set<String> seenOnSource, String url) {
        String key = normalizer.normalize(url);
        if (key == null) {
            return null;
        }
        int colon = key.indexOf(':');
        if (colon < 0 || !CRAWLED.contains(key.substring(0, colon))) {
            return null;
        }
        return seenOnSource.add(key) ? key : null;
    }
}
