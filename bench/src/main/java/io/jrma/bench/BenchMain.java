package io.jrma.bench;

import io.jrma.JvmFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH's command line ({@code org.openjdk.jmh.Main}'s options) with one addition: every forked benchmark JVM
 * gets the flags jrma needs, from {@link JvmFlags#current()} (appended after any {@code -jvmArgsAppend}).
 * The forked JVM is the running one unless {@code -jvm} says otherwise, so run this with the JDK to measure.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        CommandLineOptions cmd;
        try {
            cmd = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            System.err.println("Error parsing command line: " + e.getMessage());
            System.exit(1);
            return;
        }
        List<String> append = new ArrayList<>();
        if (cmd.getJvmArgsAppend().hasValue()) {
            append.addAll(cmd.getJvmArgsAppend().get());
        }
        append.addAll(Arrays.asList(JvmFlags.current().trim().split("\\s+")));
        Options opts = new OptionsBuilder().parent(cmd).jvmArgsAppend(append.toArray(new String[0])).build();
        Runner runner = new Runner(opts);
        try {
            if (cmd.shouldHelp()) {
                cmd.showHelp();
            } else if (cmd.shouldList()) {
                runner.list();
            } else if (cmd.shouldListWithParams()) {
                runner.listWithParams(cmd);
            } else {
                Collection<?> results = runner.run();
                if (results.isEmpty()) {
                    System.exit(1);
                }
            }
        } catch (RunnerException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.exit(1);
        }
    }
}
