// Package wordnetbench runs the WordNet reconstruction benchmark of Nickel & Kiela (2017, 2018)
// with lib/hierarchy on the closures of lib/data/wordnet, and turns the runs into the artefacts
// the notebook and `geoalign wordnet` show: a results table (mean ± std over seeds, beside the
// published numbers), the 2-D Poincaré-disk picture of the hierarchy, the norm-vs-depth plot and
// the numerical-stability table; and RunCone, HLFormer's partial-order loss on a held-out split of
// a closure (cone.go), whose claims lib/studies/hlformerstudy declares.
//
// Typical use (what `geoalign wordnet` and notebooks/14-wordnet.ipynb do):
//
//	c, desc, _ := wordnetbench.LoadClosure(wordnetbench.Mammal, "", "")
//	res, _ := wordnetbench.RunAll(backend.MustNew(), wordnetbench.Mammal, c, desc, wordnetbench.Options{
//		Models: []hierarchy.Manifold{hierarchy.Lorentz}, Dims: []int{10},
//		DTypes: []dtypes.DType{dtypes.Float64}, Seeds: []int64{1, 2, 3}})
//	table := res.Table() // mean ± std over seeds beside the published numbers
package wordnetbench
