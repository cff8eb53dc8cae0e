package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.List;

/**
 * Slurm's compressed forms, as it writes them into a job's environment:
 *
 * <ul>
 *   <li>node lists ({@code SLURM_JOB_NODELIST}, {@code SLURM_STEP_NODELIST}): names separated by commas, each a
 *       prefix with bracketed ranges of numbers ({@code node[01-04,07]}); a range keeps the width of its lower
 *       bound ({@code [08-11]}: 08 09 10 11; {@code [8-11]}: 8 9 10 11); several bracket groups multiply
 *       ({@code rack[1-2]-n[1-2]}: rack1-n1 rack1-n2 rack2-n1 rack2-n2, the last group varying fastest);
 *       order and repeats are kept as written;</li>
 *   <li>counts per node ({@code SLURM_TASKS_PER_NODE}, {@code SLURM_JOB_CPUS_PER_NODE}): numbers separated by
 *       commas, {@code N(xM)} standing for M nodes of N ({@code 2(x3),1}: 2 2 2 1).</li>
 * </ul>
 *
 * Slurm 22.05's {@code scontrol show hostnames} expands these the same way; it refuses text after the last
 * bracket ({@code n[1-2]-ib}), which is accepted here (as later versions of Slurm do). Bad input raises
 * {@link ErrorClass#ERR_ARG} naming the variable and the offending part.
 *
 * <p>Stateless; any thread.
 */
final class SlurmNodes {
    /** A node list that expands to more names than this is refused (a typo like {@code n[1-100000000]}). */
    static final int MAX_NAMES = 1 << 20;

    private SlurmNodes() {
    }

    /** The node names of a Slurm node list; {@code what} names its source in errors (e.g. the variable). */
    static List<String> expand(String nodelist, String what) {
        if (nodelist == null || nodelist.isBlank()) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " is empty: no Slurm node list to read");
        }
        List<String> out = new ArrayList<>();
        for (String item : splitTopLevel(nodelist.trim(), what)) {
            if (item.isEmpty()) {
                throw bad(what, nodelist, "an empty name between commas");
            }
            expandItem(item, what, nodelist, out);
        }
        return out;
    }

    /** The counts of a per-node list ({@code 2(x3),1} gives 2, 2, 2, 1). */
    static List<Integer> counts(String perNode, String what) {
        if (perNode == null || perNode.isBlank()) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " is empty: no Slurm count per node to read");
        }
        List<Integer> out = new ArrayList<>();
        for (String item : perNode.trim().split(",", -1)) {
            String s = item.trim();
            int open = s.indexOf('(');
            int n;
            int times = 1;
            if (open < 0) {
                n = number(s, what, perNode);
            } else {
                if (!s.endsWith(")") || !s.startsWith("x", open + 1)) {
                    throw bad(what, perNode, "'" + s + "' is neither N nor N(xM)");
                }
                n = number(s.substring(0, open), what, perNode);
                times = number(s.substring(open + 2, s.length() - 1), what, perNode);
                if (times < 1) {
                    throw bad(what, perNode, "'" + s + "' repeats " + times + " times");
                }
            }
            if (out.size() + (long) times > MAX_NAMES) {
                throw bad(what, perNode, "more than " + MAX_NAMES + " nodes");
            }
            for (int i = 0; i < times; i++) {
                out.add(n);
            }
        }
        return out;
    }

    /** Splits at the commas outside brackets. */
    private static List<String> splitTopLevel(String s, String what) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[') {
                if (depth > 0) {
                    throw bad(what, s, "a bracket inside a bracket");
                }
                depth++;
            } else if (c == ']') {
                if (depth == 0) {
                    throw bad(what, s, "a ']' without its '['");
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                items.add(s.substring(start, i).trim());
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw bad(what, s, "a '[' without its ']'");
        }
        items.add(s.substring(start).trim());
        return items;
    }

    /** Appends the names of one item (a prefix, a bracket group, and the rest expanded the same way). */
    private static void expandItem(String item, String what, String whole, List<String> out) {
        int open = item.indexOf('[');
        if (open < 0) {
            add(out, item, what, whole);
            return;
        }
        int close = item.indexOf(']', open);
        String prefix = item.substring(0, open);
        List<String> rest = new ArrayList<>();
        String tail = item.substring(close + 1);
        if (tail.isEmpty()) {
            rest.add("");
        } else {
            expandItem(tail, what, whole, rest);
        }
        for (String range : item.substring(open + 1, close).split(",", -1)) {
            String r = range.trim();
            int dash = r.indexOf('-');
            String lo = dash < 0 ? r : r.substring(0, dash);
            String hi = dash < 0 ? r : r.substring(dash + 1);
            long from = number(lo, what, whole);
            long to = number(hi, what, whole);
            if (to < from) {
                throw bad(what, whole, "the range " + r + " runs backwards");
            }
            if (to - from + 1 > MAX_NAMES) {
                throw bad(what, whole, "the range " + r + " has more than " + MAX_NAMES + " names");
            }
            int width = lo.length(); // Slurm pads to the width of the lower bound: [08-11] gives 08 09 10 11
            for (long k = from; k <= to; k++) {
                String digits = Long.toString(k);
                String padded = "0".repeat(Math.max(0, width - digits.length())) + digits;
                for (String r2 : rest) {
                    add(out, prefix + padded + r2, what, whole);
                }
            }
        }
    }

    private static void add(List<String> out, String name, String what, String whole) {
        if (out.size() >= MAX_NAMES) {
            throw bad(what, whole, "more than " + MAX_NAMES + " names");
        }
        out.add(name);
    }

    private static int number(String s, String what, String whole) {
        if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(Character::isDigit)) {
            throw bad(what, whole, "'" + s + "' is not a number");
        }
        return Integer.parseInt(s);
    }

    private static RmaException bad(String what, String value, String why) {
        return new RmaException(ErrorClass.ERR_ARG, what + "=" + value + " is not a Slurm list: " + why);
    }
}
