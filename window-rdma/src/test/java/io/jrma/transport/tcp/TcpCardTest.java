package io.jrma.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import io.jrma.core.runtime.Job;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TCP card of an IO agent: one address when it listens on one, every address of its host (loopback last) and its
 * host id when it listens on all ({@code any}, a job across hosts), and the order in which a peer tries them.
 */
class TcpCardTest {
    /** An address no interface of a test machine has (TEST-NET-3, RFC 5737). */
    private static final String ELSEWHERE = "203.0.113.7";
    private static final String OTHER_HOST = "elsewhere/00000000-0000-0000-0000-000000000000/1";

    @Test
    void aCardRoundTripsThroughItsText() {
        TcpCard c = TcpCard.parse("10.0.0.5,192.168.1.2,127.0.0.1 4711 h/boot/2a", 3);
        assertEquals(3, c.addresses().size());
        assertEquals(4711, c.port());
        assertEquals("h/boot/2a", c.hostId());
        assertEquals("10.0.0.5,192.168.1.2,127.0.0.1 4711 h/boot/2a", c.encode());
        assertEquals(new InetSocketAddress("10.0.0.5", 4711), c.first());
        assertEquals("127.0.0.1 80", TcpCard.parse("127.0.0.1 80", 0).encode()); // no host id: none written
    }

    @Test
    void aMalformedCardIsAnInternalError() {
        for (String bad : new String[] {null, "", "10.0.0.1", "10.0.0.1 x", "host.example 80", "1 2 3 4"}) {
            RmaException e = assertThrows(RmaException.class, () -> TcpCard.parse(bad, 1), "card " + bad);
            assertEquals(ErrorClass.ERR_INTERN, e.errorClass());
        }
    }

    @Test
    void anAgentOnOneAddressPublishesThatOne() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5000);
        TcpCard c = TcpCard.of(at, false);
        assertEquals(List.of(at.getAddress()), c.addresses());
        assertEquals(List.of(at), c.candidates(OTHER_HOST), "one address is tried whatever the hosts");
    }

    @Test
    void anAgentOnEveryAddressPublishesThemAllWithLoopbackLast() throws Exception {
        TcpCard c = TcpCard.of(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 5000), false);
        List<InetAddress> want = new ArrayList<>();
        for (InetAddress a : LocalAddresses.nonLoopback()) {
            if (a.getAddress().length == 4) {
                want.add(a);
            }
        }
        want.add(InetAddress.getByName("127.0.0.1"));
        assertEquals(want, c.addresses());
        assertEquals(HostId.current(), c.hostId());
        assertEquals(c, TcpCard.parse(c.encode(), 0));
    }

    @Test
    void aPeerOnTheSameHostTakesLoopbackFirst() throws Exception {
        TcpCard c = TcpCard.parse(ELSEWHERE + ",127.0.0.1 6000 " + HostId.current(), 0);
        assertEquals(new InetSocketAddress("127.0.0.1", 6000), c.candidates(HostId.current()).get(0));
    }

    @Test
    void aPeerOnAnotherHostNeverTriesLoopbackNorAnAddressOfItsOwnHost() throws Exception {
        List<String> addrs = new ArrayList<>(List.of(ELSEWHERE));
        for (InetAddress mine : LocalAddresses.nonLoopback()) {
            if (mine.getAddress().length == 4) {
                addrs.add(mine.getHostAddress()); // as docker0's 172.17.0.1, which every host has
            }
        }
        addrs.add("127.0.0.1");
        TcpCard c = TcpCard.parse(String.join(",", addrs) + " 6000 " + OTHER_HOST, 0);
        assertEquals(List.of(new InetSocketAddress(ELSEWHERE, 6000)), c.candidates(HostId.current()));
    }

    @Test
    @Timeout(30)
    void twoAgentsOnEveryAddressConnectThroughTheirCards() throws Exception {
        try (TcpPair pair = TcpPair.listen(Map.of(NetParams.INTERFACE.name(), "any"))) {
            List<List<InetSocketAddress>> eps = new ArrayList<>();
            for (TcpTransport t : pair.tcp) {
                TcpCard card = TcpCard.parse(TcpCard.of(t.boundAddress(), false).encode(), eps.size());
                assertTrue(card.addresses().size() >= 1);
                List<InetSocketAddress> tries = card.candidates(HostId.current());
                assertTrue(tries.get(0).getAddress().isLoopbackAddress(), "same host: loopback first, " + tries);
                eps.add(tries);
            }
            pair.connect(eps);
            assertEquals(0, pair.tcp[0].handshakesRefused());
            assertFalse(pair.jobs[0].isAborted() || pair.jobs[1].isAborted());
        }
    }

    @Test
    @Timeout(30)
    void aPeerWithNoReachableAddressFailsNamingIt() throws Exception {
        Map<String, String> params = Map.of(NetParams.CONNECT_TIMEOUT_MS.name(), "2000");
        Job job = new Job(2, params, 1, new int[] {0, 1});
        TcpTransport t = TcpTransport.listen(job, Handshake.newJobId(), Handshake.newSecret());
        try {
            RmaException e = assertThrows(RmaException.class,
                    () -> t.connectMesh(List.of(List.of(), List.of())));
            assertEquals(ErrorClass.ERR_OTHER, e.errorClass());
            assertTrue(e.getMessage().contains("cannot reach JVM 0") && e.getMessage().contains("jrma.tcp.interface"),
                    e.getMessage());
        } finally {
            t.close(0);
        }
    }
}
