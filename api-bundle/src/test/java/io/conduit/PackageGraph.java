package io.conduit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;

/**
 * Package → package dependencies of a set of classes, each edge with the class dependencies behind it, and the
 * rules {@link PackageGraphTest} checks on them.
 */
final class PackageGraph {

    /** A layer: an API package with its implementation package, or a single package. */
    record Layer(String name, List<String> packages) {
    }

    /**
     * The lower layers, bottom first. A layer may depend on its own packages and on the layers before it, on
     * nothing else of Conduit. Inside a layer an API package and its implementation depend on each other (the
     * API's static factories create the implementation); that is the only cycle allowed here.
     */
    static final List<Layer> LOWER_LAYERS = List.of(
            new Layer("config", List.of("io.conduit.internal.config")),
            new Layer("metrics", List.of("io.conduit.metrics")),
            new Layer("concurrent", List.of("io.conduit.concurrent", "io.conduit.internal.concurrent")),
            new Layer("buffer", List.of("io.conduit.buffer", "io.conduit.internal.buffer")),
            new Layer("platform metrics", List.of("io.conduit.internal.metrics")));

    /** How many class dependencies a message shows per package edge. */
    private static final int EVIDENCE_SHOWN = 5;

    private final String root;
    /** from package → to package → class dependencies (descriptions with source lines), sorted. */
    private final Map<String, Map<String, List<String>>> edges;
    private final Set<String> packages = new TreeSet<>();

    PackageGraph(String root, Map<String, Map<String, List<String>>> edges) {
        this.root = root;
        this.edges = edges;
        edges.forEach((from, tos) -> {
            packages.add(from);
            packages.addAll(tos.keySet());
        });
    }

    /** The graph of {@code classes} between packages under {@code root}. */
    static PackageGraph of(JavaClasses classes, String root) {
        Map<String, Map<String, List<String>>> edges = new TreeMap<>();
        Set<String> seen = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = c.getPackageName();
            seen.add(from);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                String to = (target.isArray() ? target.getBaseComponentType() : target).getPackageName();
                if (!to.equals(from) && (to.equals(root) || to.startsWith(root + "."))) {
                    addEdge(edges, from, to, d.getDescription());
                }
            }
        }
        edges.values().forEach(tos -> tos.values().forEach(list -> list.sort(null)));
        PackageGraph g = new PackageGraph(root, edges);
        g.packages.addAll(seen);
        return g;
    }

    static void addEdge(Map<String, Map<String, List<String>>> edges, String from, String to, String evidence) {
        edges.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new ArrayList<>()).add(evidence);
    }

    Set<String> packages() {
        return packages;
    }

    static String describeLowerLayers() {
        return LOWER_LAYERS.stream().map(l -> l.name() + " " + l.packages()).collect(Collectors.joining(" < "));
    }

    /** @return the index in {@link #LOWER_LAYERS} of the layer holding {@code pkg}, or -1 for an upper package */
    static int layerOf(String pkg) {
        for (int i = 0; i < LOWER_LAYERS.size(); i++) {
            if (LOWER_LAYERS.get(i).packages().contains(pkg)) {
                return i;
            }
        }
        return -1;
    }

    /** Rule 1: one entry per package edge from a lower layer to a package that is not its own or below it. */
    List<String> upwardDependenciesOfLowerLayers() {
        List<String> out = new ArrayList<>();
        edges.forEach((from, tos) -> {
            int layer = layerOf(from);
            if (layer < 0) {
                return;
            }
            tos.forEach((to, evidence) -> {
                int target = layerOf(to);
                if (target < 0 || target > layer) {
                    out.add(shortName(from) + " → " + shortName(to) + " (layer " + LOWER_LAYERS.get(layer).name()
                            + " reaches " + (target < 0 ? "an upper package" : "layer " + LOWER_LAYERS.get(target).name())
                            + "):\n" + evidence(evidence));
                }
            });
        });
        return out;
    }

    /** Rule 2: one entry per cycle (strongly connected component) that holds a lower package and more than one layer's packages. */
    List<String> cyclesThroughLowerLayers() {
        List<String> out = new ArrayList<>();
        for (Set<String> component : cycles()) {
            String lower = component.stream().filter(p -> layerOf(p) >= 0).findFirst().orElse(null);
            if (lower == null) {
                continue;
            }
            int layer = layerOf(lower);
            if (component.stream().allMatch(p -> layerOf(p) == layer)) {
                continue; // an API package with its own implementation
            }
            String otherLayer = component.stream().filter(p -> layerOf(p) != layer).findFirst().orElseThrow();
            out.add("packages on one cycle: " + component.stream().map(this::shortName).toList() + "; for example:\n"
                    + describePath(pathThrough(lower, otherLayer, component)));
        }
        return out;
    }

    /**
     * Rule 3: edges on a cycle that {@code known} does not list ("new edge on a cycle: a -> b", with a cycle through
     * it and the class dependencies behind each step), and listed edges that are no longer on one ("no longer on a
     * cycle: a -> b"). Edges inside one lower layer are rule 2's business and never listed.
     */
    List<String> cycleEdgeChanges(Set<String> known) {
        Map<String, List<String>> onCycle = cycleEdges();
        List<String> out = new ArrayList<>();
        onCycle.forEach((edge, path) -> {
            if (!known.contains(edge)) {
                out.add("new edge on a cycle: " + edge + "; the cycle:\n" + describePath(path));
            }
        });
        for (String edge : new TreeSet<>(known)) {
            if (!onCycle.containsKey(edge)) {
                out.add("no longer on a cycle: " + edge + "; remove it from KNOWN_CYCLE_EDGES");
            }
        }
        return out;
    }

    /** The edges on a cycle today, as lines of a Java {@code Set.of(...)}. */
    String cycleEdgesAsJava() {
        return cycleEdges().keySet().stream().map(e -> "            \"" + e + "\",").collect(Collectors.joining("\n"));
    }

    /** Edge "a -> b" (short names) → a cycle through it (packages, starting with a, ending before a again). */
    private Map<String, List<String>> cycleEdges() {
        Map<String, List<String>> out = new TreeMap<>();
        for (Set<String> component : cycles()) {
            for (String from : component) {
                for (String to : edges.getOrDefault(from, Map.of()).keySet()) {
                    if (!component.contains(to)) {
                        continue;
                    }
                    int layer = layerOf(from);
                    if (layer >= 0 && layerOf(to) == layer) {
                        continue;
                    }
                    List<String> path = new ArrayList<>();
                    path.add(from);
                    path.addAll(shortestPath(to, from, component));
                    path.remove(path.size() - 1);
                    out.put(shortName(from) + " -> " + shortName(to), path);
                }
            }
        }
        return out;
    }

    /** A cycle that starts at {@code start} and passes through {@code via}, both in {@code component}. */
    private List<String> pathThrough(String start, String via, Set<String> component) {
        List<String> path = new ArrayList<>(shortestPath(start, via, component));
        List<String> back = shortestPath(via, start, component);
        path.addAll(back.subList(1, back.size() - 1));
        return path;
    }

    /** Breadth-first path from {@code from} to {@code to} inside {@code component}, both ends included. */
    private List<String> shortestPath(String from, String to, Set<String> component) {
        Map<String, String> previous = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>();
        queue.add(from);
        previous.put(from, from);
        while (!queue.isEmpty()) {
            String p = queue.poll();
            if (p.equals(to)) {
                break;
            }
            for (String next : edges.getOrDefault(p, Map.of()).keySet()) {
                if (component.contains(next) && previous.putIfAbsent(next, p) == null) {
                    queue.add(next);
                }
            }
        }
        List<String> path = new ArrayList<>();
        for (String p = to; ; p = previous.get(p)) {
            path.add(0, p);
            if (p.equals(from)) {
                return path;
            }
        }
    }

    /** Each step of the closed path with the class dependencies behind it. */
    private String describePath(List<String> cycle) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cycle.size(); i++) {
            String from = cycle.get(i);
            String to = cycle.get((i + 1) % cycle.size());
            sb.append("  ").append(shortName(from)).append(" → ").append(shortName(to)).append(":\n")
                    .append(evidence(edges.get(from).get(to))).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    private static String evidence(List<String> dependencies) {
        String shown = dependencies.stream().limit(EVIDENCE_SHOWN).map(d -> "      " + d)
                .collect(Collectors.joining("\n"));
        int more = dependencies.size() - EVIDENCE_SHOWN;
        return more > 0 ? shown + "\n      … and " + more + " more" : shown;
    }

    private String shortName(String pkg) {
        return pkg.startsWith(root + ".") ? pkg.substring(root.length() + 1) : pkg;
    }

    /** The strongly connected components with more than one package (Tarjan), each sorted. */
    private List<Set<String>> cycles() {
        Tarjan t = new Tarjan();
        for (String p : packages) {
            if (!t.index.containsKey(p)) {
                t.visit(p);
            }
        }
        return t.components;
    }

    private final class Tarjan {
        final Map<String, Integer> index = new LinkedHashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> components = new ArrayList<>();

        void visit(String p) {
            index.put(p, index.size());
            low.put(p, index.get(p));
            stack.push(p);
            onStack.add(p);
            for (String next : edges.getOrDefault(p, Map.of()).keySet()) {
                if (!index.containsKey(next)) {
                    visit(next);
                    low.put(p, Math.min(low.get(p), low.get(next)));
                } else if (onStack.contains(next)) {
                    low.put(p, Math.min(low.get(p), index.get(next)));
                }
            }
            if (low.get(p).equals(index.get(p))) {
                Set<String> component = new TreeSet<>();
                String q;
                do {
                    q = stack.pop();
                    onStack.remove(q);
                    component.add(q);
                } while (!q.equals(p));
                if (component.size() > 1) {
                    components.add(component);
                }
            }
        }
    }
}
