// Child processes for tests of the command-line tools: run a program to its end and capture its
// exit status and output, or start one in the background (a board simulator) and read its lines.
// Header-only; POSIX (posix_spawn, pipes, poll).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace weft::tb {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or -1 when killed by a signal (see signal)
  int signal = 0;      // the signal that ended it, else 0
  bool timed_out = false;
  std::string out, err;
  std::string describe() const {
    return "exit " + std::to_string(exit_code) + (signal ? " signal " + std::to_string(signal) : "") +
           (timed_out ? " (timed out)" : "") + "\n--- stdout\n" + out + "--- stderr\n" + err;
  }
};

// Variables changed for a child: name -> value; an empty value removes the variable.
using EnvChanges = std::map<std::string, std::string>;

// Our environment with `changes` applied.
inline std::vector<std::string> child_environment(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (!changes.count(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  for (const auto& [k, v] : changes) {
    if (!v.empty()) env.push_back(k + "=" + v);
  }
  return env;
}

// A running child with its stdout and stderr on pipes. The destructor kills it (SIGKILL) if it
// is still running.
class Process {
 public:
  explicit Process(const std::vector<std::string>& argv, const EnvChanges& env = {}) {
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    posix_spawn_file_actions_addclose(&fa, err[0]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> env_strings = child_environment(env);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
    if (rc != 0) {
      close(out_fd_);
      close(err_fd_);
      throw std::runtime_error("cannot start " + argv[0] + ": " + std::to_string(rc));
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
  }

  pid_t pid() const { return pid_; }

  // Reads output until `pred(stdout so far)` holds, the child closes its output, or `seconds`
  // pass. Returns whether pred held.
  template <class Pred>
  bool read_until(Pred pred, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!pred(out_)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !pump(static_cast<int>(left.count()))) return pred(out_);
    }
    return true;
  }

  // The first line of stdout (without the newline), waiting up to `seconds`.
  std::optional<std::string> first_line(double seconds) {
    if (!read_until([](const std::string& o) { return o.find('\n') != std::string::npos; },
                    seconds)) {
      return std::nullopt;
    }
    return out_.substr(0, out_.find('\n'));
  }

  // Sends `sig` (e.g. SIGKILL).
  void signal(int sig) { kill(pid_, sig); }

  // Waits for the child to end (reading its output meanwhile), killing it after `seconds`.
  ProcessResult wait(double seconds) {
    ProcessResult r;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        r.timed_out = true;
        kill(pid_, SIGKILL);
        break;
      }
      pump(static_cast<int>(left.count()));
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = out_;
    r.err = err_;
    return r;
  }

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  // One poll of both pipes for up to `ms`; false when both are closed.
  bool pump(int ms) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (out_fd_ < 0 && err_fd_ < 0) return false;
    if (poll(fds, 2, ms) <= 0) return true;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? out_fd_ : err_fd_;
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        close(fd);
        fd = -1;
      } else {
        (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(n));
      }
    }
    return out_fd_ >= 0 || err_fd_ >= 0;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
};

// Runs `argv` to its end (killed after `seconds`), with `env` applied to our environment.
inline ProcessResult run_process(const std::vector<std::string>& argv, double seconds = 120,
                                 const EnvChanges& env = {}) {
  Process p(argv, env);
  return p.wait(seconds);
}

}  // namespace weft::tb
