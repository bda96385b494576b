"""jupyter_client's side of the fork server: the kernel forked without a launcher process.

Named by the catalogue's kernelspec (``metadata.kernel_provisioner``, see
:mod:`flax_errors_ext.execution.runs.kernelspec`) and found through this package's
``jupyter_client.kernel_provisioners`` entry point. Where the build's server
answers, the kernel is asked of it directly, from the build's own process: no
interpreter starts to ask on the kernel's behalf, a Python start every entry would
pay besides its kernel. Where none answers, the kernelspec's command runs as with
jupyter_client's own local provisioner (the launcher, which becomes an ordinary
kernel).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from jupyter_client.provisioning.local_provisioner import LocalProvisioner

from flax_errors_ext.execution.fork_server.forked_kernel import request_kernel
from flax_errors_ext.execution.fork_server.protocol import LAUNCH, SERVER_ENV_VAR

if TYPE_CHECKING:
    from jupyter_client.connect import KernelConnectionInfo


class ForkServerProvisioner(LocalProvisioner):
    """A local provisioner whose kernel the build's fork server forks where it can."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        """Ask the server named in the kernel's environment for a kernel; else run ``cmd``."""
        env: dict[str, str] = dict(kwargs.get("env") or {})
        kernel = None
        if LAUNCH in cmd and env.get(SERVER_ENV_VAR):
            outputs = [kwargs.get("stdout"), kwargs.get("stderr")]
            # Both or neither: the server makes the first the kernel's stdout.
            streams: tuple[int, ...] = ()
            if all(hasattr(output, "fileno") for output in outputs):
                streams = tuple(output.fileno() for output in outputs if output is not None)
            argv = cmd[cmd.index(LAUNCH) + 1 :]
            cwd = str(kwargs.get("cwd") or os.getcwd())
            kernel = request_kernel(env[SERVER_ENV_VAR], argv, cwd, env, streams)
        if kernel is None:
            return await super().launch_kernel(cmd, **kwargs)
        # Popen's part, as far as jupyter_client goes (poll, wait, signals).
        self.process = kernel  # type: ignore[assignment]
        self.pid = kernel.pid
        # The kernel leads a process group of its own (the server made it so), with
        # the processes it forks for its entries: signals go to them all.
        self.pgid = kernel.pid
        self.cwd = kwargs.get("cwd")
        connection_info: KernelConnectionInfo = self.connection_info
        return connection_info
