package io.jrma.spi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The components found on the class path with {@code ServiceLoader}, looked up once per JVM (class loader of this
 * class): transports, the multi-JVM job starter, the bootstraps for jobs other launchers start, and the buffer
 * allocator. Thread-safe.
 */
public final class Components {
    private static volatile List<TransportProvider> transports;
    private static volatile JobStarter starter;
    private static volatile BufferAllocator allocator;
    private static volatile List<WorldBootstrap> bootstraps;

    private Components() {
    }

    /** Every transport provider on the class path, by name. */
    public static List<TransportProvider> transportProviders() {
        List<TransportProvider> t = transports;
        if (t == null) {
            List<TransportProvider> found = new ArrayList<>();
            ServiceLoader.load(TransportProvider.class, Components.class.getClassLoader()).forEach(found::add);
            found.sort(Comparator.comparing(TransportProvider::name));
            transports = t = List.copyOf(found);
        }
        return t;
    }

    /**
     * The engine that starts jobs over several JVMs (the launcher module).
     *
     * @throws RmaException ERR_UNSUPPORTED_OPERATION when the launcher module is not on the class path
     */
    public static JobStarter jobStarter() {
        JobStarter s = starter;
        if (s == null) {
            s = ServiceLoader.load(JobStarter.class, Components.class.getClassLoader()).findFirst().orElseThrow(
                    () -> new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "a job over several JVMs needs jrma's"
                            + " launcher module on the class path (the io.jrma:jrma artifact brings it)"));
            starter = s;
        }
        return s;
    }

    /** Every bootstrap for jobs started by another launcher (mpiexec, srun, mpirun), by name. */
    public static List<WorldBootstrap> worldBootstraps() {
        List<WorldBootstrap> b = bootstraps;
        if (b == null) {
            List<WorldBootstrap> found = new ArrayList<>();
            ServiceLoader.load(WorldBootstrap.class, Components.class.getClassLoader()).forEach(found::add);
            found.sort(Comparator.comparing(WorldBootstrap::name));
            bootstraps = b = List.copyOf(found);
        }
        return b;
    }

    /** Where {@code Jrma.allocateMemory} takes memory from: window-shm's arena, else plain direct memory. */
    public static BufferAllocator bufferAllocator() {
        BufferAllocator a = allocator;
        if (a == null) {
            a = ServiceLoader.load(BufferAllocator.class, Components.class.getClassLoader()).findFirst()
                    .orElse(Components::direct);
            allocator = a;
        }
        return a;
    }

    private static ByteBuffer direct(int bytes) {
        if (bytes < 0) {
            throw new RmaException(ErrorClass.ERR_SIZE, "cannot allocate " + bytes + " bytes");
        }
        try {
            return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
        } catch (OutOfMemoryError e) {
            throw new RmaException(ErrorClass.ERR_NO_MEM, "no room for " + bytes + " bytes of direct memory", e);
        }
    }
}
