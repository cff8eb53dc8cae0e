package io.jrma.transport.disni;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.jrma.core.config.JobLayout;
import io.jrma.spi.TransportQuery;
import java.io.IOException;
import java.util.Map;

/**
 * Prints the disni component's answer for a two-JVM job in this JVM and, where libdisni loads, the layout of
 * {@code struct ibv_send_wr} and {@code struct ibv_sge} as libdisni was compiled against it (its own
 * {@code sizeof}/{@code offsetof} answers). Run by {@link DisniNoDeviceTest}.
 */
public final class DisniProbeMain {
    private DisniProbeMain() {
    }

    public static void main(String[] args) throws IOException {
        TransportQuery q = new DisniProvider().query(new JobLayout(2, 2, Map.of()));
        System.out.println("available=" + q.available() + " reason=" + q.reason());
        if (q.available() || q.reason().startsWith("no RDMA device")) {
            NativeDispatcher d = DisniTransport.dispatcher();
            System.out.println("layout wr=" + d._getIbvSendWRSize() + " sge=" + d._getIbvSgeSize() + " remote_addr="
                    + d._getRemoteAddressOffset() + " rkey=" + d._getRKeyOffset());
        }
    }
}
