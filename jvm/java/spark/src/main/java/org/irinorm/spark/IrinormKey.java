package org.irinorm.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.irinorm.Normalizer;

/**
 * The Spark SQL function {@code irinorm_key(url)}: the key of a URL column, {@code null} for
 * a null or invalid record. Its options travel with it as text; each executor JVM builds
 * one normalizer for them ({@link Normalizer#shared(String)}), shared by its tasks, never
 * one per row.
 *
 * <p>From PySpark (which makes it with no arguments), the options are the session's
 * {@value #OPTIONS_CONF} setting:
 *
 * <pre>{@code
 * spark.conf.set("spark.irinorm.options", "--profile crawler --form surt")
 * spark.udf.registerJavaFunction("irinorm_key", "org.irinorm.spark.IrinormKey", "string")
 * }</pre>
 */
public final class IrinormKey implements UDF1<String, String> {
    /** The Spark setting that a function made with no arguments takes its options from. */
    public static final String OPTIONS_CONF = "spark.irinorm.options";

    private static final long serialVersionUID = 1L;

    private final String options;
    private transient Normalizer normalizer;

    /** A function of the options of the active session's {@value #OPTIONS_CONF} (default: none). */
    public IrinormKey() {
        this(SparkSession.active().conf().get(OPTIONS_CONF, ""));
    }

    /**
     * A function of these key options, checked here (on the driver).
     *
     * @param options key options of {@code irinorm normalize}, as {@link
     *     Normalizer#fromOptions(String)} takes them
     * @throws IllegalArgumentException with the command line's message, for bad options
     */
    public IrinormKey(String options) {
        this.options = options;
        this.normalizer = Normalizer.shared(options);
    }

    /**
     * The key options of this function.
     *
     * @return the options, as given
     */
    public String options() {
        return options;
    }

    @Override
    public String call(String url) {
        Normalizer n = normalizer;
        if (n == null) {
            n = Normalizer.shared(options);
            normalizer = n;
        }
        return n.normalize(url);
    }
}
