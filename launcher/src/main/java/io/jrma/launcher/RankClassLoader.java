package io.jrma.launcher;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The class loader of one rank's program under jrmarun: the program's classes (and the {@code mpi} facade)
 * are loaded again for every rank, so their statics — {@code MPI.COMM_WORLD}, a program's own globals — are
 * per rank, as they would be per process (Lockless MPI loads a copy of the program per rank for the same
 * reason). The engine ({@code io.jrma.*}), its libraries and the JDK are shared by all ranks of the JVM.
 *
 * <p>Child-first for everything not shared; one instance per rank.
 */
final class RankClassLoader extends URLClassLoader {
    private static final String[] SHARED = {"java.", "javax.", "jdk.", "sun.", "com.sun.", "io.jrma.core.",
        "io.jrma.spi.", "io.jrma.sync.", "io.jrma.shm.", "io.jrma.transport.", "io.jrma.msg.", "io.jrma.ga.",
        "org.agrona.", "net.openhft.", "org.slf4j.", "org.junit.", "org.opentest4j.", "org.apiguardian.",
        "org.openjdk.jmh."};

    static {
        registerAsParallelCapable();
    }

    RankClassLoader(int rank, ClassLoader parent) {
        this(rank, parent, new URL[0]);
    }

    /** With {@code program} after this JVM's class path: the program's own, when jrmarun's JVM runs the ranks. */
    RankClassLoader(int rank, ClassLoader parent, URL[] program) {
        super("jrma-rank-" + rank, concat(classPath(), program), parent);
    }

    private static URL[] concat(URL[] a, URL[] b) {
        URL[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    static boolean shared(String name) {
        if (name.startsWith("io.jrma.") && name.indexOf('.', "io.jrma.".length()) < 0) {
            return true; // the public API package itself
        }
        for (String p : SHARED) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    private static URL[] classPath() {
        List<URL> urls = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                try {
                    urls.add(Path.of(e).toAbsolutePath().toUri().toURL());
                } catch (MalformedURLException ex) {
                    throw new IllegalStateException("class path entry " + e, ex);
                }
            }
        }
        return urls.toArray(new URL[0]);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (shared(name)) {
            return super.loadClass(name, resolve); // parent first
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException e) {
                    c = getParent().loadClass(name);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    public URL getResource(String name) {
        URL u = findResource(name);
        return u != null ? u : super.getResource(name);
    }
}
