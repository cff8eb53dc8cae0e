package io.jrma.launcher;

import io.jrma.Jrma;
import java.io.File;
import java.io.IOException;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The run {@code bin/jrmarun} makes a class-data sharing archive from ({@code -XX:ArchiveClassesAtExit}), once per
 * JDK and jar set: loads every class of jrma's own jars (the launcher's, the engine's, the transports', the
 * {@code mpi} package's), without initializing them, and runs a small job of thread ranks so that the JDK's and the
 * libraries' classes a job uses are loaded too. The JVMs of later jobs map the archive instead of loading and
 * verifying those classes one by one.
 */
public final class CdsTraining {
    /** The jars whose every class goes into the archive: jrma's own (the mpi package is mpi.jar in an install). */
    private static final String[] OWN_JARS = {"rma-core-", "launcher-", "window-shm-", "window-rdma-", "sync-epochs-",
        "two-sided-compat-", "mpi.jar"};
    private static final String CLASS_SUFFIX = ".class";
    private static final int TRAINING_RANKS = 2;

    private CdsTraining() {
    }

    public static void main(String[] args) throws IOException {
        ClassLoader loader = CdsTraining.class.getClassLoader();
        int loaded = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = new File(entry).getName();
            boolean own = false;
            for (String prefix : OWN_JARS) {
                own |= name.startsWith(prefix) && name.endsWith(".jar") || name.equals(prefix);
            }
            if (own) {
                loaded += loadAll(entry, loader);
            }
        }
        Jrma.run(TRAINING_RANKS, world -> world.barrier());
        System.out.println("jrma: " + loaded + " classes loaded for the class-data sharing archive");
    }

    private static int loadAll(String jar, ClassLoader loader) throws IOException {
        int n = 0;
        try (JarFile f = new JarFile(jar)) {
            for (Enumeration<JarEntry> e = f.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(CLASS_SUFFIX) && !name.endsWith("module-info.class")) {
                    try {
                        Class.forName(name.substring(0, name.length() - CLASS_SUFFIX.length()).replace('/', '.'), false,
                                loader);
                        n++;
                    } catch (LinkageError | ClassNotFoundException ignored) {
                        // a class whose optional library is missing here (UCX, DiSNI): not archived
                    }
                }
            }
        }
        return n;
    }
}
