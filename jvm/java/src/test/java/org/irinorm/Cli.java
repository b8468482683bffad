package org.irinorm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line the keys are compared with ({@code irinorm.cli}: the release build of
 * {@code irinorm}), and the records it is given ({@code irinorm.corpora}: the corpora beside
 * the repository, and the repository's own sample).
 */
final class Cli {
    private Cli() {}

    /** The repository's root. */
    static Path repo() {
        return Path.of(System.getProperty("irinorm.repo", ".")).toAbsolutePath();
    }

    /** The CLI's key of every line of {@code file} ({@code null} for an invalid record). */
    static List<String> keys(Path file, List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary(), "normalize", "--output", "jsonl", "--threads", "2"));
        command.addAll(options);
        command.add(file.toString());
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> keys = new ArrayList<>();
        try (var lines = p.inputReader(StandardCharsets.UTF_8).lines()) {
            lines.forEach(line -> keys.add(Json.stringMember(line, "key")));
        }
        if (p.waitFor() != 0) {
            throw new AssertionError("the CLI failed on " + file + " with " + options);
        }
        return keys;
    }

    /** What the CLI writes to its standard error for these options (on empty input). */
    static String refusal(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary(), "normalize"));
        command.addAll(options);
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() == 0) {
            throw new AssertionError("the CLI took " + options);
        }
        return err;
    }

    private static String binary() {
        String cli = System.getProperty("irinorm.cli");
        if (cli == null || !Files.isExecutable(Path.of(cli))) {
            throw new IllegalStateException("set -Dirinorm.cli to the irinorm binary (got " + cli + ")");
        }
        return cli;
    }

    /** Every corpus file: the corpora beside the repository (when there) and the sample. */
    static List<Path> corpusFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        Path corpora = Path.of(System.getProperty("irinorm.corpora", repo().resolveSibling("shared/corpora").toString()));
        if (Files.isDirectory(corpora)) {
            try (var list = Files.list(corpora)) {
                list.filter(f -> f.toString().endsWith(".txt")).sorted().forEach(files::add);
            }
        }
        files.add(repo().resolve("corpora/sample.txt"));
        return files;
    }

    /** The corpus files in one file (each ended by a line feed), made once. */
    static synchronized Path allRecords() throws IOException {
        if (all == null) {
            Path file = Files.createTempFile("irinorm-all-records-", ".txt");
            file.toFile().deleteOnExit();
            for (Path f : corpusFiles()) {
                byte[] data = Files.readAllBytes(f);
                Files.write(file, data, java.nio.file.StandardOpenOption.APPEND);
                if (data.length > 0 && data[data.length - 1] != '\n') {
                    Files.write(file, new byte[] {'\n'}, java.nio.file.StandardOpenOption.APPEND);
                }
            }
            all = file;
        }
        return all;
    }

    private static Path all;

    /** The records of a file, as the CLI reads them. */
    static List<String> records(Path file) throws IOException {
        return Normalizer.readRecords(Files.readAllBytes(file));
    }
}
