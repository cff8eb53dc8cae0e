package io.jrma.core.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Names the host (and its boot) this JVM runs on, so that JVMs can tell whether they share memory: two JVMs
 * with the same id see the same {@code /dev/shm}. The id is the host name (the UTS name, from /proc), the kernel's
 * boot id and the device of the file system mounted on {@code /dev/shm}: a host name alone can repeat across
 * containers or machines; the boot id changes with every boot of every kernel but is one for all containers (and
 * network-namespace hosts) of a machine; and two of those with a tmpfs of their own on {@code /dev/shm} have
 * different devices, while one tmpfs bind-mounted into both has one (they do share it). Window segments and the
 * rings between JVMs both use it. Never asks the resolver ({@code InetAddress.getLocalHost()} throws where the
 * host's name does not resolve).
 *
 * <p>Stateless; any thread.
 */
public final class HostId {
    private static volatile String cached;

    private HostId() {
    }

    /** The shared-memory directory whose mount the id covers. */
    private static final Path SHM = Path.of("/dev/shm");

    /**
     * This JVM's host id: {@code hostname/boot-id/shm-device}, or the empty string when the boot id cannot be read
     * (not Linux).
     */
    public static String current() {
        String c = cached;
        if (c == null) {
            String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
            cached = c = boot.isEmpty() ? "" : hostName() + "/" + boot + "/" + shmDevice(SHM);
        }
        return c;
    }

    /** This host's name: the kernel's (UTS) name, else $HOSTNAME, else {@code localhost}; never a name lookup. */
    public static String hostName() {
        String host = read(Path.of("/proc/sys/kernel/hostname"));
        return host.isEmpty() ? System.getenv().getOrDefault("HOSTNAME", "localhost") : host;
    }

    /** The device of the file system holding {@code dir} ({@code stat}'s st_dev), or {@code -} if unknown. */
    static String shmDevice(Path dir) {
        try {
            return Long.toHexString(((Number) Files.getAttribute(dir, "unix:dev")).longValue());
        } catch (IOException | RuntimeException e) {
            return "-";
        }
    }

    /** Whether two JVMs with these ids share memory (an empty id shares with nobody). */
    public static boolean sameHost(String a, String b) {
        return !a.isEmpty() && a.equals(b);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
