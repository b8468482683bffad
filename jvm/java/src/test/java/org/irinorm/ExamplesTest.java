package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.MalformedURLException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.irinorm.examples.NutchStyleNormalizer;
import org.irinorm.examples.StormCrawlerStyleFilter;
import org.junit.jupiter.api.Test;

/** The crawler examples of examples/java, compiled with the tests, do what they say. */
class ExamplesTest {
    @Test
    void theNutchStyleNormalizerKeysPerScope() throws Exception {
        NutchStyleNormalizer n = new NutchStyleNormalizer(Map.of(
                NutchStyleNormalizer.DEFAULT_SCOPE, "--profile crawler",
                "partition", "--level scheme"));
        String url = "HTTP://www.Example.com:80/a/./b?utm_source=x&b=1";
        assertEquals(Normalizer.shared("--profile crawler").normalize(url), n.normalize(url, "outlink"));
        assertEquals(Normalizer.shared("--level scheme").normalize(url), n.normalize(url, "partition"));
        assertThrows(MalformedURLException.class, () -> n.normalize("http://[a/", "outlink"));
    }

    @Test
    void theStormCrawlerStyleFilterDropsWithNull() {
        StormCrawlerStyleFilter f = new StormCrawlerStyleFilter("--profile crawler --drop-fragment");
        Set<String> seen = new HashSet<>();
        String first = f.filter(seen, "http://Example.com/a#x");
        assertEquals(Normalizer.shared("--profile crawler --drop-fragment").normalize("http://Example.com/a#x"), first);
        assertNull(f.filter(seen, "HTTP://example.com:80/a#y"), "the same key again");
        assertNull(f.filter(seen, "mailto:a@example.com"), "not crawled");
        assertNull(f.filter(seen, "http://[a/"), "invalid");
    }
}
