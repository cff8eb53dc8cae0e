package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.List;

/**
 * Hints (MPI_Info): an ordered map of string keys to string values, at most {@link MPI#MAX_INFO_KEY} and
 * {@link MPI#MAX_INFO_VAL} characters. Windows take the info keys docs/info-keys.md lists (for example
 * {@code no_locks}, {@code accumulate_ordering}); others are kept and ignored.
 */
public final class Info implements Freeable, Cloneable {
    /** The jrma info; null for INFO_NULL and once freed. */
    io.jrma.Info info;

    private Info(io.jrma.Info info) {
        this.info = info;
    }

    /** An empty info object (MPI_INFO_CREATE). */
    public Info() throws MPIException {
        MPI.check();
        this.info = new io.jrma.Info();
    }

    static Info nullInfo() {
        return new Info(null);
    }

    static Info envInfo() {
        return new Info(new io.jrma.Info());
    }

    /**
     * Fills {@link MPI#INFO_ENV} with the keys MPI defines for it and those Open MPI adds: {@code command} (the
     * class whose {@code main} called MPI.Init, as {@code java} names the program), {@code argv} (the arguments
     * given to Init), {@code maxprocs} and {@code soft}, {@code host}, {@code arch}, {@code wdir},
     * {@code thread_level}, {@code ompi_np}, {@code ompi_num_apps} and {@code ompi_first_rank} (one application).
     */
    static void fillEnv(Info env, String[] args, int size, int threadLevel) {
        io.jrma.Info i = env.info;
        i.set("command", command());
        if (args != null && args.length > 0) {
            i.set("argv", String.join(" ", args));
        }
        i.set("maxprocs", String.valueOf(size));
        i.set("soft", String.valueOf(size));
        i.set("host", MPI.hostName());
        i.set("arch", System.getProperty("os.arch", "unknown"));
        i.set("wdir", System.getProperty("user.dir", "."));
        i.set("thread_level", new String[] {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
            "MPI_THREAD_MULTIPLE"}[threadLevel]);
        i.set("ompi_np", String.valueOf(size));
        i.set("ompi_num_apps", "1");
        i.set("ompi_first_rank", "0");
    }

    /**
     * The program's main class: the outermost {@code main} of the calling thread outside the JDK and jrma (under
     * jrmarun the launcher's frames are below it), else the first word of the java command line.
     */
    private static String command() {
        String main = StackWalker.getInstance().walk(frames -> frames
                .filter(f -> f.getMethodName().equals("main"))
                .map(StackWalker.StackFrame::getClassName)
                .filter(c -> !c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("io.jrma.")
                && !c.startsWith("mpi."))
                .reduce((first, last) -> last).orElse(null));
        if (main != null) {
            return main;
        }
        String cmd = System.getProperty("sun.java.command", "");
        int sp = cmd.indexOf(' ');
        return sp < 0 ? (cmd.isEmpty() ? "java" : cmd) : cmd.substring(0, sp);
    }

    /** The jrma info behind an argument: null for null or INFO_NULL. */
    static io.jrma.Info ji(Info i) {
        return i == null ? null : i.info;
    }

    /** A new Info holding a copy of a jrma info. */
    static Info of(io.jrma.Info i) {
        return new Info(i == null ? new io.jrma.Info() : i.dup());
    }

    private <T> T run(Work<T> w) throws MPIException {
        MPI.check();
        try {
            if (info == null) {
                throw new RmaException(ErrorClass.ERR_INFO, "the info object is INFO_NULL or was freed");
            }
            return w.run();
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD (info call)", e);
        }
    }

    /** Sets {@code key} to {@code value} (MPI_INFO_SET). */
    public void set(String key, String value) throws MPIException {
        run(() -> {
            if (key == null || key.isEmpty() || key.length() > MPI.MAX_INFO_KEY) {
                throw new RmaException(ErrorClass.ERR_INFO_KEY, "an info key must have 1.." + MPI.MAX_INFO_KEY
                        + " characters: " + key);
            }
            if (value == null || value.isEmpty() || value.length() > MPI.MAX_INFO_VAL) {
                throw new RmaException(ErrorClass.ERR_INFO_VALUE, "the value of info key " + key + " must have 1.."
                        + MPI.MAX_INFO_VAL + " characters");
            }
            info.set(key, value);
            return null;
        });
    }

    /** The value of {@code key}, or null (MPI_INFO_GET). */
    public String get(String key) throws MPIException {
        return run(() -> {
            if (key == null || key.isEmpty() || key.length() > MPI.MAX_INFO_KEY) {
                throw new RmaException(ErrorClass.ERR_INFO_KEY, "an info key must have 1.." + MPI.MAX_INFO_KEY
                        + " characters: " + key);
            }
            return info.get(key);
        });
    }

    /** Removes {@code key}; ERR_INFO_NOKEY if it is not set (MPI_INFO_DELETE). */
    public void delete(String key) throws MPIException {
        run(() -> {
            info.delete(key);
            return null;
        });
    }

    /** The number of keys (MPI_INFO_GET_NKEYS). */
    public int size() throws MPIException {
        return run(() -> info.size());
    }

    /** The {@code i}-th key, in the order keys were first set (MPI_INFO_GET_NTHKEY). */
    public String getKey(int i) throws MPIException {
        return run(() -> {
            List<String> keys = new ArrayList<>(info.keys());
            if (i < 0 || i >= keys.size()) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "info key index " + i + " is outside 0.." + (keys.size() - 1));
            }
            return keys.get(i);
        });
    }

    /** Same as {@link #dup}, with MPIException wrapped in a RuntimeException. */
    @Override
    public Info clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /** A copy (MPI_INFO_DUP). */
    public Info dup() throws MPIException {
        return run(() -> new Info(info.dup()));
    }

    /** Frees the info object (MPI_INFO_FREE); it becomes INFO_NULL. */
    @Override
    public void free() throws MPIException {
        run(() -> {
            info = null;
            return null;
        });
    }

    /** Whether this is INFO_NULL (or has been freed). */
    public boolean isNull() {
        return info == null;
    }

    @Override
    public String toString() {
        return info == null ? "MPI_INFO_NULL" : info.toString();
    }
}
