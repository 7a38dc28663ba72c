package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luahook/luahook/internal/config"
)

// What a one-shot decision (luahook fire) does when something did not load:
// the config's [runner] on_load_error, or a choice given for one call.
const (
	// OnLoadErrorDeny runs what loaded and denies an event that can block.
	OnLoadErrorDeny = config.OnLoadErrorDeny
	// OnLoadErrorSkip runs what loaded and warns.
	OnLoadErrorSkip = config.OnLoadErrorSkip
	// OnLoadErrorFail decides nothing.
	OnLoadErrorFail = config.OnLoadErrorFail
)

// CheckOnLoadError returns an error naming the valid choices when choice is
// neither empty (no choice: the config's) nor one of them.
func CheckOnLoadError(choice string) error {
	if choice == "" || slices.Contains(config.OnLoadErrorChoices(), choice) {
		return nil
	}
	return fmt.Errorf("%q: want %s", choice, strings.Join(config.OnLoadErrorChoices(), ", "))
}

// OnLoadError returns the choice in force for a call: choice when it is
// given, else the [runner] on_load_error of the configuration in force, else
// OnLoadErrorDeny. e may be nil, when nothing could be opened.
func (e *Engine) OnLoadError(choice string) string {
	if choice == "" && e != nil {
		choice = e.Config().Runner.OnLoadError
	}
	if choice == "" {
		choice = OnLoadErrorDeny
	}
	return choice
}
