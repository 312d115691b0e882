package geom

import (
	. "github.com/gomlx/gomlx/core/graph"
)

// A symmetric matrix here is a k×k table of nodes, one node per entry, all of broadcast-compatible
// shapes (equal ranks, dimensions equal or 1). Determinants and adjugates are polynomials in the
// entries, built with elementwise ops: no division, no pivoting, so they are exact to rounding for
// singular matrices too and their gradients are polynomials (finite everywhere). The tables are tiny
// (k ≤ ~6): the batch lives inside each entry node. See doc.go, "Determinants".

// symmetricEntry returns g[p][q] from a table where only p ≤ q may be filled.
func symmetricEntry(g [][]*Node, p, q int) *Node {
	if p > q {
		p, q = q, p
	}
	return g[p][q]
}

// symmetricDet returns det(G) for a symmetric table G (only entries p ≤ q are read).
// Closed forms for k ≤ 3; larger k by Laplace (cofactor) expansion with memoised minors.
func symmetricDet(g [][]*Node) *Node {
	k := len(g)
	e := func(p, q int) *Node { return symmetricEntry(g, p, q) }
	switch k {
	case 1:
		return e(0, 0)
	case 2:
		return Sub(Mul(e(0, 0), e(1, 1)), Square(e(0, 1)))
	case 3:
		// a(df − e²) − b(bf − ec) + c(be − dc) with G = [[a b c] [b d e] [c e f]].
		a, b, c := e(0, 0), e(0, 1), e(0, 2)
		d, ee, f := e(1, 1), e(1, 2), e(2, 2)
		m0 := Sub(Mul(d, f), Square(ee))
		m1 := Sub(Mul(b, f), Mul(ee, c))
		m2 := Sub(Mul(b, ee), Mul(d, c))
		return Add(Sub(Mul(a, m0), Mul(b, m1)), Mul(c, m2))
	}
	return laplaceDet(k, e)
}

// laplaceDet returns the determinant of the k×k matrix with entries e(p, q) by cofactor expansion
// along successive rows. Minors are memoised by (first row, column set): the minor of rows r..k−1 on
// a column set of size k−r. There are 2ᵏ of them and each costs |set| products: O(k·2ᵏ) nodes,
// versus k! for plain recursion. k = 6 builds about 200 products.
func laplaceDet(k int, e func(p, q int) *Node) *Node {
	memo := make(map[uint64]*Node)
	var minor func(row int, cols uint64) *Node
	minor = func(row int, cols uint64) *Node {
		if row == k-1 {
			for q := 0; q < k; q++ {
				if cols&(1<<q) != 0 {
					return e(row, q)
				}
			}
		}
		if m, ok := memo[cols]; ok {
			return m
		}
		var sum *Node
		sign := 1
		for q := 0; q < k; q++ {
			if cols&(1<<q) == 0 {
				continue
			}
			term := Mul(e(row, q), minor(row+1, cols&^(1<<q)))
			switch {
			case sum == nil && sign > 0:
				sum = term
			case sum == nil:
				sum = Neg(term)
			case sign > 0:
				sum = Add(sum, term)
			default:
				sum = Sub(sum, term)
			}
			sign = -sign
		}
		memo[cols] = sum
		return sum
	}
	return minor(0, (uint64(1)<<k)-1)
}

// symmetricAdjugate returns adj(D) (only entries p ≤ q filled) and det(D) of a symmetric table D.
// adj(D)ᵀ = cofactor matrix; for symmetric D it is symmetric: adj[p][q] = (−1)^(p+q) det(D without row q, column p).
func symmetricAdjugate(d [][]*Node) (adj [][]*Node, det *Node) {
	m := len(d)
	adj = make([][]*Node, m)
	for p := range adj {
		adj[p] = make([]*Node, m)
	}
	e := func(p, q int) *Node { return symmetricEntry(d, p, q) }
	switch m {
	case 1:
		adj[0][0] = OnesLike(d[0][0])
		return adj, d[0][0]
	case 2:
		adj[0][0], adj[0][1], adj[1][1] = e(1, 1), Neg(e(0, 1)), e(0, 0)
		return adj, symmetricDet(d)
	}
	for p := 0; p < m; p++ {
		for q := p; q < m; q++ {
			rows := without(m, q)
			cols := without(m, p)
			sub := make([][]*Node, m-1)
			for i := range sub {
				sub[i] = make([]*Node, m-1)
				for j := range sub[i] {
					sub[i][j] = e(rows[i], cols[j])
				}
			}
			cof := generalDet(sub)
			if (p+q)%2 == 1 {
				cof = Neg(cof)
			}
			adj[p][q] = cof
		}
	}
	return adj, symmetricDet(d)
}

// generalDet is the determinant of a full (not necessarily symmetric) table.
func generalDet(t [][]*Node) *Node {
	k := len(t)
	e := func(p, q int) *Node { return t[p][q] }
	switch k {
	case 1:
		return t[0][0]
	case 2:
		return Sub(Mul(e(0, 0), e(1, 1)), Mul(e(0, 1), e(1, 0)))
	}
	return laplaceDet(k, e)
}

// without returns 0..n−1 without skip.
func without(n, skip int) []int {
	out := make([]int, 0, n-1)
	for i := 0; i < n; i++ {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

// borderedDet returns the determinant of the symmetric block matrix
//
//	[ α   cᵀ ]
//	[ c   D  ]      det = α·det(D) − cᵀ adj(D) c
//
// (Schur complement written with the adjugate, so it holds for singular D too). α, the cross terms
// c[p] and the entries of D are broadcast-compatible nodes; only the cross terms and α need to be
// full-size, D's entries can be small (e.g. [1, B2] while c[p] is [B1, B2]).
func borderedDet(alpha *Node, c []*Node, d [][]*Node) *Node {
	adj, detD := symmetricAdjugate(d)
	m := len(c)
	var quad *Node
	for p := 0; p < m; p++ {
		for q := p; q < m; q++ {
			term := Mul(Mul(c[p], c[q]), adj[p][q])
			if p != q {
				term = MulScalar(term, 2)
			}
			if quad == nil {
				quad = term
			} else {
				quad = Add(quad, term)
			}
		}
	}
	return Sub(Mul(alpha, detD), quad)
}
