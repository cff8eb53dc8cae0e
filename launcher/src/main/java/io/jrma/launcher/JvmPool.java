package io.jrma.launcher;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Sets of JVMs kept after a clean job for the next job with the same command line ({@code Jrma.job(n).jvms(j)}
 * with {@code jrma.jvms.reuse}; jrmarun's JVMs are never kept), killed when this JVM exits.
 *
 * <p>Thread-safe: every method locks the pool.
 */
final class JvmPool {
    /** How many sets are kept per command line. */
    private static final int SETS = 2;
    private static final Map<String, ArrayDeque<LaunchedJvm[]>> POOL = new HashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (POOL) {
                POOL.values().forEach(d -> d.forEach(ws -> Arrays.stream(ws).forEach(LaunchedJvm::kill)));
            }
        }, "jrma-pool-cleanup"));
    }

    private JvmPool() {
    }

    /** A kept set for {@code key} whose JVMs all still run, or null; sets with a dead JVM are killed on the way. */
    static LaunchedJvm[] take(String key) {
        synchronized (POOL) {
            ArrayDeque<LaunchedJvm[]> d = POOL.get(key);
            while (d != null && !d.isEmpty()) {
                LaunchedJvm[] c = d.poll();
                if (Arrays.stream(c).allMatch(w -> w.process.isAlive())) {
                    return c;
                }
                Arrays.stream(c).forEach(LaunchedJvm::kill);
            }
            return null;
        }
    }

    /** Keeps {@code jvms} for the next job of {@code key}; false when enough sets are kept already. */
    static boolean keep(String key, LaunchedJvm[] jvms) {
        synchronized (POOL) {
            ArrayDeque<LaunchedJvm[]> d = POOL.computeIfAbsent(key, k -> new ArrayDeque<>());
            if (d.size() >= SETS) {
                return false;
            }
            d.push(jvms.clone());
            return true;
        }
    }

    /** Whether {@code jvms} is kept (its first JVM belongs to a kept set). */
    static boolean holds(LaunchedJvm[] jvms) {
        synchronized (POOL) {
            for (ArrayDeque<LaunchedJvm[]> d : POOL.values()) {
                for (LaunchedJvm[] ws : d) {
                    if (ws.length > 0 && jvms.length > 0 && ws[0] == jvms[0]) {
                        return true;
                    }
                }
            }
            return false;
        }
    }
}
