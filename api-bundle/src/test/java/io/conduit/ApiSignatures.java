package io.conduit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaGenericArrayType;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.domain.JavaWildcardType;

/** The types that public and protected signatures of a set of packages mention (rule 4 of {@link PackageGraphTest}). */
final class ApiSignatures {

    /** Deeper than any signature of ours; stops a recursive bound ({@code E extends Enum<E>}) that is not one object. */
    private static final int MAX_DEPTH = 16;

    private ApiSignatures() {
    }

    /**
     * @return one line per signature element of a visible class of {@code exported} that mentions a type of a
     *         package named {@code internal} (or under one): the class or member, what it declares, the type
     */
    static List<String> internalTypesIn(JavaClasses classes, Set<String> exported) {
        List<String> out = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!exported.contains(c.getPackageName()) || !visible(c)) {
                continue;
            }
            c.getSuperclass().ifPresent(t -> check(out, c.getName() + " extends " + t.getName(), t));
            for (JavaType t : c.getInterfaces()) {
                check(out, c.getName() + " implements " + t.getName(), t);
            }
            for (JavaType t : c.getTypeParameters()) {
                check(out, c.getName() + " type parameter " + t.getName(), t);
            }
            for (JavaField f : c.getFields()) {
                if (visible(c, f)) {
                    check(out, f.getFullName() + " has type " + f.getType().getName(), f.getType());
                }
            }
            for (JavaCodeUnit u : c.getCodeUnits()) {
                if (!visible(c, u) || u.getModifiers().contains(JavaModifier.SYNTHETIC)
                        || u.getModifiers().contains(JavaModifier.BRIDGE)) {
                    continue;
                }
                check(out, u.getFullName() + " returns " + u.getReturnType().getName(), u.getReturnType());
                for (JavaType t : u.getParameterTypes()) {
                    check(out, u.getFullName() + " takes " + t.getName(), t);
                }
                for (JavaClass t : u.getThrowsClause().getTypes()) {
                    check(out, u.getFullName() + " throws " + t.getName(), t);
                }
                for (JavaType t : u.getTypeParameters()) {
                    check(out, u.getFullName() + " type parameter " + t.getName(), t);
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    private static void check(List<String> out, String what, JavaType type) {
        for (JavaClass raw : rawTypes(type)) {
            if (isInternal(raw.getPackageName())) {
                out.add(what + " (mentions " + raw.getName() + ")");
            }
        }
    }

    static boolean isInternal(String pkg) {
        return ("." + pkg + ".").contains(".internal.");
    }

    /** A class other bundles can name: public, or a protected member class, inside classes they can name. */
    static boolean visible(JavaClass c) {
        if (c.isAnonymousClass() || c.isLocalClass()) {
            return false;
        }
        Set<JavaModifier> m = c.getModifiers();
        boolean own = m.contains(JavaModifier.PUBLIC) || (c.isNestedClass() && m.contains(JavaModifier.PROTECTED));
        return own && c.getEnclosingClass().map(ApiSignatures::visible).orElse(true);
    }

    /** A public member, or a protected one of a class that can be subclassed. */
    private static boolean visible(JavaClass owner, JavaMember member) {
        Set<JavaModifier> m = member.getModifiers();
        return m.contains(JavaModifier.PUBLIC)
                || (m.contains(JavaModifier.PROTECTED) && !owner.getModifiers().contains(JavaModifier.FINAL));
    }

    /** Every class a type names: itself or its erasure, type arguments, bounds and array components, once each. */
    static Set<JavaClass> rawTypes(JavaType type) {
        Set<JavaClass> out = new LinkedHashSet<>();
        collect(type, out, Collections.newSetFromMap(new IdentityHashMap<>()), 0);
        return out;
    }

    private static void collect(JavaType type, Set<JavaClass> out, Set<JavaType> seen, int depth) {
        if (!seen.add(type) || depth > MAX_DEPTH) {
            return; // a recursive bound such as E extends Enum<E>
        }
        if (type instanceof JavaClass c) {
            out.add(c.isArray() ? c.getBaseComponentType() : c);
        } else if (type instanceof JavaParameterizedType p) {
            out.add(p.toErasure());
            for (JavaType a : p.getActualTypeArguments()) {
                collect(a, out, seen, depth + 1);
            }
        } else if (type instanceof JavaTypeVariable<?> v) {
            for (JavaType b : v.getUpperBounds()) {
                collect(b, out, seen, depth + 1);
            }
        } else if (type instanceof JavaWildcardType w) {
            for (JavaType b : w.getUpperBounds()) {
                collect(b, out, seen, depth + 1);
            }
            for (JavaType b : w.getLowerBounds()) {
                collect(b, out, seen, depth + 1);
            }
        } else if (type instanceof JavaGenericArrayType a) {
            collect(a.getComponentType(), out, seen, depth + 1);
        } else {
            out.add(type.toErasure());
        }
    }
}
