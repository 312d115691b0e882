// Package npz reads and writes NumPy .npz archives (np.savez / np.savez_compressed): a zip file
// whose members "<name>.npy" are .npy arrays. Each member is decompressed into memory and parsed
// by package npy (strict header grammar, length and NaN checks), so errors name the archive and
// the member, e.g. "feats.npz:text.npy: truncated data".
package npz
