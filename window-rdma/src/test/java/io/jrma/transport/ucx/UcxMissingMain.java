package io.jrma.transport.ucx;

import io.jrma.core.config.JobLayout;
import io.jrma.spi.TransportQuery;
import java.util.Map;

/**
 * Run by {@link UcxMissingTest} in a JVM told to load a libucp that does not exist: prints the ucx component's answer
 * to a 2-JVM layout that names it, and whether opening a worker fails cleanly.
 */
public final class UcxMissingMain {
    private UcxMissingMain() {
    }

    public static void main(String[] args) {
        TransportQuery q = new UcxProvider().query(new JobLayout(2, 2, Map.of("jrma.transports", "tcp,ucx")));
        System.out.println("available=" + q.available() + " reason=" + q.reason());
        try {
            UcxWorker.open("sm,self").close();
            System.out.println("open=opened");
        } catch (RuntimeException e) {
            System.out.println("open=" + e.getMessage());
        }
    }
}
