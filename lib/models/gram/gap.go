package gram

import "math"

// ModalityGap holds GRAM Table 7's statistics of an embedding space (GRAM App. B.3, after Liang et
// al. 2022, "Mind the Gap"), computed on the L2-normalised embeddings:
//
//   - IntraCosine[m]: the mean cosine similarity between two different samples of modality m (VV,
//     TT, AA in Table 7: how tightly a modality clusters);
//   - CentroidDistance[m][n]: ‖c_m − c_n‖, the Euclidean distance between the centroids (mean unit
//     vectors) of modalities m and n (VT, TA, VA in Table 7: the modality gap).
type ModalityGap struct {
	IntraCosine      []float64
	CentroidDistance [][]float64
}

// MeasureModalityGap computes the ModalityGap of the embeddings. The mean over the N(N−1) ordered
// pairs i ≠ j of cos(x_i, x_j) is (‖Σ x_i‖² − N) / (N(N−1)) for unit vectors, so it costs O(N·d).
func MeasureModalityGap(emb *Embeddings) ModalityGap {
	k := emb.NumModalities()
	gap := ModalityGap{IntraCosine: make([]float64, k), CentroidDistance: make([][]float64, k)}
	centroids := make([][]float64, k)
	n := float64(emb.N)
	for m := 0; m < k; m++ {
		sum := make([]float64, emb.Dim)
		norms := 0.0 // Σ‖x_i‖², N unless a row is all zero
		for _, u := range emb.Unit(m) {
			for j, x := range u {
				sum[j] += x
				norms += x * x
			}
		}
		sq := 0.0
		c := make([]float64, emb.Dim)
		for j, s := range sum {
			sq += s * s
			c[j] = s / n
		}
		if emb.N > 1 {
			gap.IntraCosine[m] = (sq - norms) / (n * (n - 1))
		}
		centroids[m] = c
	}
	for m := 0; m < k; m++ {
		gap.CentroidDistance[m] = make([]float64, k)
		for q := 0; q < k; q++ {
			d := 0.0
			for j := range centroids[m] {
				diff := centroids[m][j] - centroids[q][j]
				d += diff * diff
			}
			gap.CentroidDistance[m][q] = math.Sqrt(d)
		}
	}
	return gap
}
