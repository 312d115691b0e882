package featdir

import (
	"errors"
	"os"
	"path/filepath"
)

// Files lists the files of dir that LoadTuples (when dir has ModalityFile) or LoadTextVideo reads,
// among those that exist: the id, caption, modality and split lists, every array's .npy file and
// ArchiveFile. It is what a run's record fingerprints (lib/rundir): a file added later that a load
// would read (such as a val.txt) is in the list as well.
func Files(dir string) ([]string, error) {
	names := []string{ModalityFile, IDsFile, VideoIDsFile, CaptionsFile, TrainFile, ValFile, TestFile, ArchiveFile}
	arrays := []string{videoArray, videoMask, textArray, wordsArray, wordsMask}
	if mods, err := ReadIDs(filepath.Join(dir, ModalityFile)); err == nil {
		arrays = mods
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, a := range arrays {
		names = append(names, a+arraySuffix)
	}
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}
