package io.jrma.transport.disni;

import io.jrma.spi.JobLayout;
import io.jrma.spi.TransportQuery;
import java.util.Map;

/** Prints the disni component's answer for a two-JVM job in this JVM (run by {@link DisniNoDeviceTest}). */
public final class DisniProbeMain {
    private DisniProbeMain() {
    }

    public static void main(String[] args) {
        TransportQuery q = new DisniProvider().query(new JobLayout(2, 2, Map.of()));
        System.out.println("available=" + q.available() + " reason=" + q.reason());
    }
}
