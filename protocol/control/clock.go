package control

import (
	"math"
	"net/http"
	"time"

	"github.com/minisqs/minisqs/protocol/rest"
)

// maxAdvance bounds one move of the clock: a hundred years, well inside a
// time.Duration.
const maxAdvance = 100 * 365 * 24 * time.Hour

type clockJSON struct {
	Now           string  `json:"now"`
	OffsetSeconds float64 `json:"offsetSeconds"`
}

func (a *API) clock() clockJSON {
	return clockJSON{Now: rest.FormatTime(a.e.Now()), OffsetSeconds: a.e.Offset().Seconds()}
}

func (a *API) getClock(http.ResponseWriter, *http.Request) (int, any, error) {
	return http.StatusOK, a.clock(), nil
}

// advanceClock answers POST /_minisqs/clock/advance {"seconds": n}: the
// engine's time moves forward by n seconds and everything then due runs
// before the answer.
func (a *API) advanceClock(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var in struct {
		Seconds *float64 `json:"seconds"`
	}
	if err := rest.DecodeJSON(w, r, &in, 0, false); err != nil {
		return 0, nil, err
	}
	if in.Seconds == nil {
		return 0, nil, rest.Errorf(rest.CodeInvalidRequest, "seconds is required.")
	}
	d := time.Duration(math.Round(*in.Seconds * float64(time.Second)))
	if *in.Seconds <= 0 || d <= 0 || *in.Seconds > maxAdvance.Seconds() {
		return 0, nil, rest.Errorf(rest.CodeInvalidRequest, "seconds must be above 0 (the clock never goes back) and at most %.0f.", maxAdvance.Seconds())
	}
	if err := a.e.Advance(d); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.clock(), nil
}
