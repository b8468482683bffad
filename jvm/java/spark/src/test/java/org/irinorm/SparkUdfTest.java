package org.irinorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.irinorm.spark.IrinormKey;
import org.irinorm.spark.IrinormSpark;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code irinorm_key(url)} in Spark local[2]: registered in one call, it keys a DataFrame of
 * every corpus line as the CLI does, at 1 and 4 partitions; registered as PySpark does
 * ({@code registerJavaFunction}: the class by name, its options from the session).
 */
class SparkUdfTest {
    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder().master("local[2]").appName("irinorm-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    /** The records of {@code file} as a table {@code (i, url)} in {@code partitions} partitions. */
    private static Dataset<Row> table(List<String> records, int partitions) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            rows.add(RowFactory.create(i, records.get(i)));
        }
        StructType schema = new StructType().add("i", DataTypes.IntegerType).add("url", DataTypes.StringType);
        return spark.createDataFrame(rows, schema).repartition(partitions);
    }

    /** The keys of the table's rows, in record order. */
    private static List<String> keys(Dataset<Row> table, String function, int count) {
        table.createOrReplaceTempView("records");
        String[] keys = new String[count];
        for (Row r : spark.sql("SELECT i, " + function + "(url) FROM records").collectAsList()) {
            keys[r.getInt(0)] = r.getString(1);
        }
        return java.util.Arrays.asList(keys);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void theKeysAreTheClis(int partitions) throws Exception {
        Path file = Cli.allRecords();
        List<String> records = Cli.records(file);
        Dataset<Row> table = table(records, partitions);
        assertEquals(partitions, table.rdd().getNumPartitions());
        for (String options : List.of("--profile crawler --form surt", "--level syntax --form iri")) {
            IrinormSpark.register(spark, "irinorm_key", options);
            List<String> want = Cli.keys(file, List.of(options.split(" ")));
            assertEquals(want, keys(table, "irinorm_key", records.size()), options);
        }
    }

    @Test
    void registeredByClassNameItTakesTheSessionsOptions() {
        spark.conf().set(IrinormKey.OPTIONS_CONF, "--profile crawler");
        spark.udf().registerJava("irinorm_crawler", IrinormKey.class.getName(), DataTypes.StringType);
        List<String> urls = List.of("HTTP://www.Example.com/a?utm_source=x&b=1", "http://[a/", "http://a/\u00e9");
        List<String> got = keys(table(urls, 2), "irinorm_crawler", urls.size());
        Normalizer n = Normalizer.shared("--profile crawler");
        List<String> want = new ArrayList<>();
        urls.forEach(u -> want.add(n.normalize(u)));
        assertEquals(want, got);
        assertNull(got.get(1), "an invalid record has a null key");
    }

    @Test
    void nullsAndBadOptions() {
        IrinormSpark.register(spark, "irinorm_plain", "");
        assertNull(spark.sql("SELECT irinorm_plain(CAST(NULL AS STRING))").first().getString(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IrinormSpark.register(spark, "irinorm_bad", "--level protocol"));
        assertEquals("--level protocol needs --rules FILE or --profile NAME", e.getMessage());
    }
}
