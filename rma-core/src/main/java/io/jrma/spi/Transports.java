package io.jrma.spi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Params;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Chooses a job's transports, as Open MPI's {@code --mca btl}: {@code jrma.transports} lists the components to use
 * ({@code shm,tcp}) or those to exclude ({@code ^shm}); each selected component is then queried with the job's
 * layout and used when it accepts. The choice depends on the layout and the parameters only, so every JVM of a job
 * makes the same one (transports that set themselves up collectively rely on that).
 *
 * <p>TCP cannot be excluded: it carries the job's start-up, the control plane between JVMs, aborts and goodbyes,
 * and it is the one transport that reaches every JVM wherever it runs.
 */
public final class Transports {
    /** The transport that is always kept. */
    public static final String ALWAYS = "tcp";

    /**
     * One component's standing for a layout.
     *
     * @param selected whether {@code jrma.transports} lets it be used
     * @param selection the value of {@code jrma.transports} that decided it
     * @param query its answer to the layout (asked whether selected or not)
     */
    public record Choice(TransportProvider provider, boolean selected, String selection, TransportQuery query) {
        /** Whether the job uses it. */
        public boolean used() {
            return selected && query.available();
        }

        /** One line: priority and reason, or why it is not used. */
        public String describe() {
            if (!selected) {
                return "not selected: " + Params.TRANSPORTS.name() + "=" + selection + " leaves it out ("
                        + query.reason() + ")";
            }
            return query.available() ? "priority " + query.priority() + ": " + query.reason()
                    : "declined: " + query.reason();
        }
    }

    private Transports() {
    }

    /**
     * Every transport component on the class path with its standing for {@code layout}, highest priority first.
     *
     * @throws RmaException ERR_ARG when {@code jrma.transports} names an unknown component or excludes tcp
     */
    public static List<Choice> evaluate(JobLayout layout) {
        List<TransportProvider> all = Components.transportProviders();
        Set<String> names = new LinkedHashSet<>();
        all.forEach(p -> names.add(p.name()));
        String value = Params.TRANSPORTS.get(layout.params());
        Set<String> selected = parse(value, names);
        List<Choice> out = new ArrayList<>();
        for (TransportProvider p : all) {
            out.add(new Choice(p, selected.contains(p.name()), value, p.query(layout)));
        }
        out.sort(Comparator.comparingInt((Choice c) -> c.query().priority()).reversed());
        return out;
    }

    /**
     * The transports a job of {@code layout} opens, in the order it opens them: ascending priority (TCP first).
     *
     * @throws RmaException ERR_ARG for a bad {@code jrma.transports}; ERR_UNSUPPORTED_OPERATION when the job spans
     *                      JVMs and no transport reaches them (window-rdma, which holds TCP, is not on the class path)
     */
    public static List<TransportProvider> select(JobLayout layout) {
        List<TransportProvider> used = new ArrayList<>();
        List<Choice> all = evaluate(layout);
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).used()) {
                used.add(all.get(i).provider());
            }
        }
        if (layout.jvms() > 1 && used.stream().noneMatch(p -> p.name().equals(ALWAYS))) {
            throw new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "a job over " + layout.jvms() + " JVMs needs"
                    + " the tcp transport (module window-rdma) on the class path; found: " + names(all));
        }
        return used;
    }

    /**
     * The names {@code value} selects among {@code known}: a list of names (tcp added when missing) or, after
     * {@code ^}, the names to leave out.
     *
     * @throws RmaException ERR_ARG for an unknown name or an attempt to exclude tcp
     */
    public static Set<String> parse(String value, Set<String> known) {
        String v = value.toLowerCase(Locale.ROOT).replace(" ", "");
        boolean exclude = v.startsWith("^");
        Set<String> named = new LinkedHashSet<>();
        for (String n : (exclude ? v.substring(1) : v).split(",")) {
            if (n.isEmpty()) {
                continue;
            }
            if (!known.contains(n) && !n.equals(ALWAYS)) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "run-time parameter " + Params.TRANSPORTS.name() + "=" + value
                        + " names an unknown transport '" + n + "' (found on the class path: " + String.join(",", known)
                        + ")");
            }
            named.add(n);
        }
        Set<String> out = new LinkedHashSet<>();
        if (exclude) {
            if (named.contains(ALWAYS)) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "run-time parameter " + Params.TRANSPORTS.name() + "=" + value
                        + ": tcp cannot be excluded (it carries the start-up, the control plane between JVMs, aborts"
                        + " and goodbyes)");
            }
            for (String k : known) {
                if (!named.contains(k)) {
                    out.add(k);
                }
            }
        } else {
            out.addAll(named);
        }
        out.add(ALWAYS);
        return out;
    }

    private static String names(List<Choice> all) {
        List<String> n = new ArrayList<>();
        all.forEach(c -> n.add(c.provider().name()));
        return n.isEmpty() ? "none" : String.join(",", n);
    }
}
