"""test_algebra.py — the Python binding of the layout algebra (python/mapc/algebra.py) through the built libmapc:
every operation's Mapping against the normal form mapc algebra prints (and the equivalence decision), chained
calls, the queries, AlgebraError with its code, the refusals of bad arguments, and docs/python.md's example.

Usage: test_algebra.py   (MAPC_LIBRARY and PYTHONPATH point at the build; prints "N passed, N failed")"""

import os
import subprocess
import sys

import mapc

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, file=sys.stderr)


def same(m, want, what):
    """m is a Mapping printing as want and equivalent to it."""
    check(isinstance(m, mapc.Mapping) and str(m) == want and m == m.program.mapping(want),
          "%s: %s, expected %s" % (what, m, want))


def raises(exc, code, fn, *args, **kw):
    """fn(*args, **kw) raises exc (with .code when code is given)."""
    try:
        fn(*args, **kw)
    except exc as e:
        check(code is None or e.code == code, "%s: code %s, expected %s" % (fn.__name__, getattr(e, "code", None), code))
        return e
    except Exception as e:  # noqa: BLE001 - any other exception is the failure reported
        check(False, "%s raised %s: %s, expected %s" % (fn.__name__, type(e).__name__, e, exc.__name__))
        return None
    check(False, "%s did not raise %s" % (fn.__name__, exc.__name__))
    return None


# ---- complement, cover, compose ----
p = mapc.compile("axes![X = 10, Y = 20, A = 4, Big = 4194304, Z = 1099511627776]; type T = m![X = 4];")
c = p.complement("T", "X")
same(c, "m![X # 12 / 4]", "complement(T, X)")
same(p.cover("T", "X"), "m![X # 12]", "cover(T, X)")
same(p.cover(p.types["T"], "X", pad="bottom"), "m![X #{!} 12]", "cover(T, X, #{!})")
same(p.cover("T", "X", pad="#{0}"), "m![X #{0} 12]", "cover(T, X, #{0})")
same(p.compose(c, X="m![Y = 10]"), "m![Y = 10 # 12 / 4]", "compose(complement(T, X), X := m![Y = 10])")
same(p.compose("m![X, Y]", {"X": "m![Y = 10]", "Y": p.mapping("m![X # 20]")}), "m![Y = 10, X # 20]", "simultaneous")
same(p.complement("m![Z]", "Z"), "m![1]", "any size")
e = raises(mapc.AlgebraError, "size-mismatch", p.compose, "m![X]", X="m![Y]")
check(e is not None and "|F| = 20 but |X| = 10" in str(e) and e.status == 32, "its message: %s" % e)
raises(mapc.AlgebraError, "undeclared-axis", p.complement, "T", "Nope")
raises(mapc.AlgebraError, "overflow", p.complement, "m![A, A]", "A")
raises(mapc.AlgebraError, "foreign-axis", p.complement, "m![X, Y]", "X")
raises(mapc.AlgebraError, "no-complement", p.complement, "m![[X # 30] / 3 % 2, X % 2]", "X")
raises(mapc.AlgebraError, "too-large", p.complement, "m![Big, Big]", "Big")
raises(mapc.AlgebraError, "too-large", p.injective, "m![Big, Big]")
e = raises(mapc.NotFoundError, None, p.complement, "Tx", "X")
check(e is not None and "did you mean 'T'" in str(e), "an unknown type: %s" % e)
raises(mapc.CompileError, None, p.complement, "m![Q]", "X")
raises(ValueError, None, p.cover, "T", "X", pad="sideways")
raises(ValueError, None, p.compose, "m![X]")
raises(TypeError, None, p.complement, 7, "X")
raises(TypeError, None, p.complement, "T", None)
other = mapc.compile("axes![X = 10]; type T = m![X = 4];")
raises(ValueError, None, p.complement, other.types["T"], "X")

# ---- divide and products ----
p = mapc.compile("""axes![O = 24, X = 24, X10 = 10, W = 24, Y = 6, M = 6, N = 20, M5 = 5, Mo = 3, Mi = 2, No = 4,
      Ni = 5, R = 6, Cl = 4, O2 = 24];
type A = m![O / 8, O % 2, O / 2 % 4];""")
same(p.divide("A", X="m![X / 2 % 4]"), "m![O / 8, O % 4, O / 4 % 2]", "divide")
same(p.divide("m![O2 % 4, O2 / 4]", R="m![R % 3]", Cl="m![Cl % 2]"), "m![O2 % 4, O2 / 4]", "two modes")
same(p.zipped_divide("m![O2 % 4, O2 / 4]", R="m![R % 3]", Cl="m![Cl % 2]"),
     "m![O2 / 2 % 2, O2 / 12, O2 % 2, O2 / 4 % 3]", "zipped")
same(p.divide("m![O2 % 4, O2 / 4]", {"R": "m![R % 3]", "Cl": "m![Cl % 2]"}, zipped=True),
     "m![O2 / 2 % 2, O2 / 12, O2 % 2, O2 / 4 % 3]", "zipped=True with a dict")
same(p.divide("m![X10]", X10="m![X10 = 4]"), "m![X10 # 12]", "an overhang")
same(p.product("m![W % 2, W / 4 % 2]", "W", "m![Y]", "Y"), "m![W / 8, W % 4, W / 4 % 2]", "product")
same(p.blocked_product("m![No, Mo]", "m![Mi, Ni]", M=("Mo", "Mi"), N=("No", "Ni")), "m![N / 5, M, N % 5]", "blocked")
same(p.raked_product("m![No, Mo]", "m![Mi, Ni]", M=("Mo", "Mi"), N=("No", "Ni")), "m![N % 4, M % 3, M / 3, N / 4]",
     "raked")
same(p.blocked_product("m![No, Mo]", "m![Mi, Ni]", {"M5": ("Mo", "Mi"), "N": ("No", "Ni")}),
     "m![N / 5, M5 # 6 / 1, N % 5]", "blocked with padding")
raises(mapc.AlgebraError, "undeclared-axis", p.divide, "A", Bad="m![X]")
raises(mapc.AlgebraError, "undeclared-axis", p.product, "m![W]", "W", "m![Y]", "Nope")
raises(TypeError, None, p.blocked_product, "m![No, Mo]", "m![Mi, Ni]", M="Mo")
raises(ValueError, None, p.divide, "A")

# ---- inverses, conversion and the queries ----
p = mapc.compile("axes![O = 12, P = 12, E = 8, P8 = 8, P4 = 4, O1 = 1, A = 4, P3 = 3, C = 3, Q = 16];")
same(p.inverse("m![O % 3, O / 3]", "P", ["O"]), "m![P % 4, P / 4]", "inverse")
same(p.inverse("m![A = 3]", "P3", "A"), "m![P3 #{!} 4]", "inverse, one axis as a string")
same(p.inverse("m![A = 3]", "P3", ["A"], pad="zero"), "m![P3 #{0} 4]", "inverse, the non-image zero")
same(p.inverse("m![C, A]", "P", ["A", "C"]), "m![P % 4, P / 4]", "inverse, two axes")
same(p.left_inverse("m![A, C]", "P", ["C", "A"]), "m![P % 3, P / 3]", "left inverse")
same(p.conversion("m![C, A]", "m![A, C]", "P"), "m![P % 3, P / 3]", "conversion")
same(p.conversion("m![C, A # 8]", "m![A, C]", "P"), "m![P # 24 % 3, P # 24 / 3]", "conversion with padding")
same(p.nullspace("m![A, 3]", "P"), "m![P % 3]", "nullspace")
same(p.nullspace("m![2, A, 2, C % 1 # 3 / 3]", "Q"), "m![Q / 8, Q % 2]", "nullspace 2")
same(p.coalesce("m![A / 2, A % 2, C]"), "m![A, C]", "coalesce")
check(p.injective("m![A, C]") == (True, None), "m![A, C] is injective")
check(p.injective("m![A, A % 2]") == (False, (1, 2)), "m![A, A %% 2]: %s" % (p.injective("m![A, A % 2]"),))
check(p.injective("m![C, 2, A]") == (False, (0, 4)), "m![C, 2, A]")
check(p.vector("m![A, C]") == 12, "vector(m![A, C])")
check(p.vector("m![C, A]", "m![A, C]") == 1, "vector(CA, AC)")
check(p.vector("m![A, C # 6]") == 3, "vector(m![A, C # 6])")
e = raises(mapc.AlgebraError, "not-injective", p.left_inverse, "m![2, A]", "P8", ["A"])
check(e is not None and "positions 0 and 4" in str(e), "its message: %s" % e)
raises(mapc.AlgebraError, "size-mismatch", p.inverse, "m![A]", "P8", ["A"])
raises(mapc.AlgebraError, "not-held", p.conversion, "m![A]", "m![A = 2 # 4]", "A")
raises(mapc.AlgebraError, "undeclared-axis", p.nullspace, "m![A]", "Nope")
raises(mapc.NotFoundError, None, p.vector, "m![A]", "Nope")
raises(ValueError, None, p.inverse, "m![E]", "P8", ["E"], pad=4)
# results chain, and are Mappings of the program
inv = p.inverse("m![C, A]", "P", ["A", "C"])
same(p.coalesce(inv), "m![P % 4, P / 4]", "coalesce of a result")
check(inv.program is p and len(inv) == 12, "a result is a Mapping of the program with |P| positions")
p.close()
raises(ValueError, None, mapc.Program.coalesce, p, "m![A]")

# ---- the guide's example runs as pasted and prints what its comments say ----
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mapc.__file__))))
text = open(os.path.join(root, "docs", "python.md"), encoding="utf-8").read()
section = text[text.index("\n## The layout algebra\n"):]
code = section[section.index("```python\n") + 10:section.index("\n```\n")]
run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
said = [line.split("# ", 1)[1].strip() for line in code.splitlines() if "print(" in line and "# " in line]
check(run.returncode == 0 and run.stdout.splitlines() == said and len(said) == 7,
      "docs/python.md's algebra example prints what it says:\n" + run.stdout + run.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
