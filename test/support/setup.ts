// No test may reach the developer's own tmux server through an inherited $TMUX.
delete process.env.TMUX
delete process.env.TMUX_PANE
