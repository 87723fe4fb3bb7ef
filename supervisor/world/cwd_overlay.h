// The private working directory of a search's namespaces (IsolatedInit, --isolate …,cwd): the
// real directory seen through an overlay mounted over it in the tree's mount namespace — its
// lower layer the real directory, its upper and work directories on a tmpfs of their own. What
// an execution writes in its working directory goes to the upper layer, and nowhere else; a new
// overlay for the next execution shows the directory as it was when the search began. Not a
// copy: nothing is read until the program reads it.
//
// A mount over a directory does not move the processes already in it: a program enters the
// overlay by chdir after it is mounted — the launcher's chdir before exec, or one injected into
// an execution forked from a fork server's template (whose own working directory is the
// overlay of the execution it was made in). Runs in the namespaces' init.
#pragma once

#include <optional>
#include <string>

#include "supervisor/world/private_tmp.h"

namespace chess::supervisor {

class CwdOverlay {
 public:
  CwdOverlay() = default;
  CwdOverlay(const CwdOverlay&) = delete;
  CwdOverlay& operator=(const CwdOverlay&) = delete;
  ~CwdOverlay();

  // Holds the real directory `path` (absolute), as it is now: the lower layer of every overlay,
  // even once one hides it. 0 or the errno.
  int Hold(const std::string& path);
  // Mounts a new overlay over the directory, the last one (and its layer) going first. 0 or the
  // errno.
  int Mount();
  // The mounts went already (a private /tmp they were under was replaced): the next Mount has
  // nothing to take down.
  void Forget();
  // Whether nothing was written through the overlay since it was mounted: no file made, changed
  // or removed, no attribute of the directory changed (a copy-up takes an inode in the layer).
  bool Pristine() const;
  const std::string& Path() const { return path_; }

 private:
  // Takes down the overlay and its layer: what was mounted over the real directory until the
  // path leads to it again (a mount the program made over it goes too). 0 or the errno.
  int Unmount();
  void CloseLayers();
  std::string Layers() const { return "/proc/self/fd/" + std::to_string(layers_); }

  std::string path_;
  int lower_ = -1;   // the real directory (O_PATH)
  int layers_ = -1;  // the root of the tmpfs that holds the upper and work directories (O_PATH)
  bool mounted_ = false;
  std::optional<TmpState> fresh_;  // that tmpfs, as the overlay was mounted
};

// Why an overlay could not be mounted over `cwd` (the errno its mount gave), and what to do, for
// a person: "--isolate cwd: cannot put an overlay over /mnt/share (nfs): …". Runs in chess-trace.
std::string WhyNoOverlay(const std::string& cwd, int error);

}  // namespace chess::supervisor
