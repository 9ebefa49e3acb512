// The files a mechanism file makes MuJoCo read: the MJCF or URDF itself, every file it
// <include>s (recursively) and every asset file (mesh, texture, height field, skin), resolved as
// MuJoCo 2.2 resolves them (compiler meshdir / texturedir / assetdir, strippath). Listed so that
// a study can bind its results to their contents (a changed robot file is never mixed into a
// resume or merge) and so that nothing but a regular file reaches MuJoCo, which would block
// forever on a FIFO.
#pragma once

#include <string>
#include <vector>

namespace simpact {

struct MechanismFileReference {
  std::string role;  // "mechanism_file", "include", "mesh", "texture", "hfield", "skin"
  std::string path;  // as MuJoCo opens it (relative paths from the model file's folder)
};

// The mechanism file first, then what it reads, in document order, each path once. A reference
// whose file does not exist is left out (MuJoCo's load names it). Throws InputError naming
// `field` when a referenced path exists but is not a regular file (a FIFO, a device, a folder),
// before anything opens it.
std::vector<MechanismFileReference> mechanism_file_references(const std::string& file,
                                                              const std::string& field);

}  // namespace simpact
