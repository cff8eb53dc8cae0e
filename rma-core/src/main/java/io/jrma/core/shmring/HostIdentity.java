package io.jrma.core.shmring;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What says that two JVMs share one machine's memory: the host name and the kernel's boot id (a host name
 * alone can repeat across containers or machines; the boot id changes with every boot of every kernel).
 *
 * <p>Stateless; any thread.
 */
final class HostIdentity {
    private HostIdentity() {
    }

    /** {@code hostname/boot-id}, or the empty string when the boot id cannot be read (not Linux). */
    static String local() {
        String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
        if (boot.isEmpty()) {
            return "";
        }
        String host = read(Path.of("/proc/sys/kernel/hostname"));
        if (host.isEmpty()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = "unknown";
            }
        }
        return host + "/" + boot;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
