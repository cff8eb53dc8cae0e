package io.jrma.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command lines that start a JVM as a user does: the {@code java} of the JVM running the tests, the test class path,
 * and jrma's JVM flags where the program itself needs them (jrmarun adds them to the JVMs it starts). Stateless.
 */
public final class Command {
    /** The launcher's main class (named, not linked: test-support sits below the launcher module). */
    public static final String JRMARUN_MAIN = "io.jrma.launcher.JrmaRun";
    /** System property the build sets to jrma's JVM flags (the pom's {@code jrma.jvm.flags} and extras). */
    public static final String ARG_LINE_PROPERTY = "jrma.test.argLine";

    private Command() {
    }

    /** The path of the first of {@code names} found as an executable on PATH, or null (the test then skips). */
    public static String onPath(String... names) {
        for (String name : names) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }

    /** The java executable of the JVM running this test. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The class path of this test run. */
    public static String classPath() {
        return System.getProperty("java.class.path");
    }

    /** jrma's JVM flags as the build passed them ({@value #ARG_LINE_PROPERTY}), one element a flag. */
    public static List<String> jrmaJvmFlags() {
        List<String> out = new ArrayList<>();
        for (String f : System.getProperty(ARG_LINE_PROPERTY, "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                out.add(f);
            }
        }
        return out;
    }

    /** jrmarun with {@code args}, its own JVM started with {@code launcherJvmOptions} ({@code -D} test hooks). */
    public static List<String> jrmarun(List<String> launcherJvmOptions, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(launcherJvmOptions);
        cmd.addAll(List.of("-cp", classPath(), JRMARUN_MAIN));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /** jrmarun with {@code args}. */
    public static List<String> jrmarun(String... args) {
        return jrmarun(List.of(), args);
    }

    /** {@code java <jrma's flags> -cp <test class path> mainClass args}: a program that starts jrma itself. */
    public static List<String> javaMain(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(jrmaJvmFlags());
        cmd.addAll(List.of("-cp", classPath(), mainClass));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /** {@code a} then {@code b}. */
    public static String[] concat(String[] a, String... b) {
        String[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
