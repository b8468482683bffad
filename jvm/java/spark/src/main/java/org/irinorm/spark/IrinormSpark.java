package org.irinorm.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/** Registers irinorm's key function with a Spark session. */
public final class IrinormSpark {
    private IrinormSpark() {}

    /**
     * Registers {@code name(url)}, the irinorm key of a string column, for SQL and the
     * DataFrame API: {@code SELECT irinorm_key(url) FROM …}.
     *
     * @param spark the session
     * @param name the function's name in SQL
     * @param options key options of {@code irinorm normalize} ({@code "--profile crawler
     *     --form surt"}; empty for the defaults)
     * @return the registered function, for {@code df.select(f.apply(col("url")))}
     * @throws IllegalArgumentException with the command line's message, for bad options
     */
    public static UserDefinedFunction register(SparkSession spark, String name, String options) {
        UserDefinedFunction key = functions.udf(new IrinormKey(options), DataTypes.StringType);
        return spark.udf().register(name, key);
    }
}
