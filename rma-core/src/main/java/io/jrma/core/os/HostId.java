package io.jrma.core.os;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Names the host (and its boot) this JVM runs on, so that JVMs can tell whether they share memory: two JVMs
 * with the same id see the same {@code /dev/shm}. The id is the host name plus the kernel's boot id (a host
 * name alone can repeat across containers or machines; the boot id changes with every boot of every kernel).
 * Window segments and the rings between JVMs both use it.
 *
 * <p>Stateless; any thread.
 */
public final class HostId {
    private static volatile String cached;

    private HostId() {
    }

    /** This JVM's host id: {@code hostname/boot-id}, or the empty string when the boot id cannot be read (not Linux). */
    public static String current() {
        String c = cached;
        if (c == null) {
            String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
            String host = read(Path.of("/proc/sys/kernel/hostname"));
            if (host.isEmpty()) {
                try {
                    host = InetAddress.getLocalHost().getHostName();
                } catch (IOException e) {
                    host = System.getenv().getOrDefault("HOSTNAME", "localhost");
                }
            }
            cached = c = boot.isEmpty() ? "" : host + "/" + boot;
        }
        return c;
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
