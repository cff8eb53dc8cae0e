package io.jrma.core.shm;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Names the host (and its boot) this JVM runs on, so that JVMs can tell whether they share memory: two JVMs
 * with the same id see the same {@code /dev/shm}. The id is the host name plus the kernel's boot id.
 *
 * <p>Stateless; any thread.
 */
public final class HostId {
    private static volatile String cached;

    private HostId() {
    }

    /** This JVM's host id. */
    public static String current() {
        String c = cached;
        if (c == null) {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = System.getenv().getOrDefault("HOSTNAME", "localhost");
            }
            String boot;
            try {
                boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            } catch (IOException | RuntimeException e) {
                boot = "no-boot-id";
            }
            cached = c = host + "/" + boot;
        }
        return c;
    }
}
