package terrarium

import (
	"context"
	"fmt"
	"log/slog"

	l "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_log"
)

// Logger is a *slog.Logger writing to the host's log (what Terraform's TF_LOG_PROVIDER
// shows): Logger(ctx).Info("created a pet", "id", id).
func Logger(ctx context.Context) *slog.Logger {
	return slog.New(hostHandler{})
}

// Stopping says whether Terraform asked the provider to stop (Ctrl-C) since the running call
// began: wind down and return what has been reached (WithState). The host tells running
// calls, lets them go on for a grace period (5 s by default), then interrupts them.
func Stopping(ctx context.Context) bool {
	return stopping()
}

type hostHandler struct {
	attrs []slog.Attr
	group string
}

func level(lv slog.Level) l.Level {
	switch {
	case lv < slog.LevelDebug:
		return l.Level_Trace
	case lv < slog.LevelInfo:
		return l.Level_Debug
	case lv < slog.LevelWarn:
		return l.Level_Info
	case lv < slog.LevelError:
		return l.Level_Warn
	}
	return l.Level_Error
}

func (h hostHandler) Enabled(_ context.Context, lv slog.Level) bool { return l.Enabled(level(lv)) }

func (h hostHandler) Handle(_ context.Context, r slog.Record) error {
	fields := make([]l.Field, 0, len(h.attrs)+r.NumAttrs())
	add := func(a slog.Attr) bool {
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		fields = append(fields, l.Field{Key: key, Value: fmt.Sprint(a.Value.Resolve().Any())})
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	l.Log(level(r.Level), r.Message, fields)
	return nil
}

func (h hostHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return h
}

func (h hostHandler) WithGroup(name string) slog.Handler {
	if h.group != "" {
		name = h.group + "." + name
	}
	h.group = name
	return h
}
