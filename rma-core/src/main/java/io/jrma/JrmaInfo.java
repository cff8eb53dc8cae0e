package io.jrma;

import io.jrma.core.runtime.Param;
import io.jrma.core.runtime.Params;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Properties;

/**
 * Prints what this jrma installation is and how it is configured, in the spirit of {@code ompi_info}: the jrma
 * version, the JDK, the JVM flags jrma needs ({@link JvmFlags}), and every run-time parameter with its
 * default, the value in force for a job started now without explicit parameters (system properties, then
 * environment), where that value came from, its scope and its description.
 *
 * <p>Run it with {@code java -cp rma-core.jar io.jrma.JrmaInfo}; {@code -Djrma.path=packet} etc. show
 * the effect of a setting.
 */
public final class JrmaInfo {
    private JrmaInfo() {
    }

    /** The jrma version from the jar's Maven descriptor, or {@code unknown} when run from classes. */
    public static String version() {
        try (InputStream in = JrmaInfo.class.getResourceAsStream("/META-INF/maven/io.jrma/rma-core/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through
        }
        String v = JrmaInfo.class.getPackage().getImplementationVersion();
        return v != null ? v : "unknown (not run from the rma-core jar)";
    }

    /** Where the value in force of {@code p} comes from: {@code system property}, {@code environment} or {@code default}. */
    static String source(Param p) {
        if (System.getProperty(p.name()) != null) {
            return "system property";
        }
        if (System.getenv(p.envName()) != null) {
            return "environment " + p.envName();
        }
        return "default";
    }

    /** Writes the report. */
    public static void print(PrintStream out) {
        out.println("jrma " + version());
        out.println("  java:      " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor")
                + ", feature " + Runtime.version().feature() + ")");
        out.println("  java.home: " + System.getProperty("java.home"));
        out.println("  os:        " + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                + ", " + io.jrma.core.runtime.Affinity.cores() + " CPUs " + java.util.Arrays.toString(io.jrma.core.runtime.Affinity.cpus()));
        out.println("  jvm flags: " + JvmFlags.current());
        out.println("  syscalls:  " + io.jrma.core.shm.CrossMemory.binding()
                + " (kernel copies between JVMs; java.lang.foreign or jdk.incubator.foreign: the JDK's linker)");
        out.println();
        out.println("Run-time parameters (set per job with Jrma.job(n).param(name, value), or -Dname=value,");
        out.println("or the environment variable NAME_IN_CAPITALS_WITH_UNDERSCORES; first match wins):");
        java.util.List<Param> all = new java.util.ArrayList<>(Params.ALL);
        all.addAll(io.jrma.core.net.NetParams.ALL);
        all.addAll(io.jrma.core.shmring.ShmParams.ALL);
        for (Param p : all) {
            out.println();
            out.println("  " + p.name() + "   (scope " + p.scope() + ", env " + p.envName() + ")");
            out.println("      default:   " + p.defaultValue());
            out.println("      in force:  " + p.get(null) + "   [" + source(p) + "]");
            out.println("      " + p.description());
        }
    }

    public static void main(String[] args) {
        print(System.out);
    }
}
