package io.jrma.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of the project's packages import which (from the import statements of main sources), and the cycles among
 * them: the strongly connected components of more than one package. A package reached only by a name written in full
 * is not seen; {@link SourceLines#inlineQualifiedNames} keeps those few.
 */
public final class PackageGraph {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?([\\w.]+)(?:\\.\\*)?;");

    private PackageGraph() {
    }

    /**
     * The edges among the packages of {@code files} whose names start with one of {@code prefixes}: each package and
     * the other packages of the project it imports from.
     */
    public static Map<String, Set<String>> of(List<Path> files, List<String> prefixes) throws IOException {
        Map<String, Set<String>> g = new TreeMap<>();
        for (Path f : files) {
            String src = Files.readString(f, StandardCharsets.UTF_8);
            Matcher p = PACKAGE.matcher(src);
            if (!p.find() || !ours(p.group(1), prefixes)) {
                continue;
            }
            Set<String> to = g.computeIfAbsent(p.group(1), k -> new TreeSet<>());
            Matcher i = IMPORT.matcher(src);
            while (i.find()) {
                String pkg = packageOf(i.group(1));
                if (!pkg.equals(p.group(1)) && ours(pkg, prefixes)) {
                    to.add(pkg);
                }
            }
        }
        return g;
    }

    /** The package part of an imported name: the segments before the first that starts with a capital. */
    static String packageOf(String imported) {
        StringBuilder b = new StringBuilder();
        for (String seg : imported.split("\\.")) {
            if (!seg.isEmpty() && Character.isUpperCase(seg.charAt(0))) {
                break;
            }
            b.append(b.length() == 0 ? "" : ".").append(seg);
        }
        return b.toString();
    }

    private static boolean ours(String pkg, List<String> prefixes) {
        for (String x : prefixes) {
            if (pkg.equals(x) || pkg.startsWith(x + ".")) {
                return true;
            }
        }
        return false;
    }

    /** The cycles of {@code g}: its strongly connected components of two or more packages, each sorted. */
    public static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Tarjan t = new Tarjan(g);
        for (String v : g.keySet()) {
            if (!t.index.containsKey(v)) {
                t.visit(v);
            }
        }
        return t.found;
    }

    /** Tarjan's strongly connected components, recursive (a project has tens of packages). */
    private static final class Tarjan {
        final Map<String, Set<String>> g;
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> found = new ArrayList<>();
        int next;

        Tarjan(Map<String, Set<String>> g) {
            this.g = g;
        }

        void visit(String v) {
            index.put(v, next);
            low.put(v, next);
            next++;
            stack.push(v);
            onStack.add(v);
            for (String w : g.getOrDefault(v, Set.of())) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> comp = new TreeSet<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    comp.add(w);
                } while (!w.equals(v));
                if (comp.size() > 1) {
                    found.add(comp);
                }
            }
        }
    }
}
