package fabric

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// checkRange returns an OutOfRange error when v is outside lo..hi; what names the kind of
// value in the text ("a priority").
func checkRange(at violation.Field, what string, v, lo, hi int64) violation.List {
	if v >= lo && v <= hi {
		return nil
	}
	return violation.List{violation.ErrorAt(at, OutOfRange{What: what, Value: v, Lo: lo, Hi: hi})}
}

// OutOfRange: an integer outside its range.
type OutOfRange struct {
	What          string
	Value, Lo, Hi int64
}

func (r OutOfRange) Words(at violation.Field, name violation.Names) (string, string) {
	return "Value Out of Range", fmt.Sprintf("%s is %d; %s must be %d..%d: set a value in that range",
		name(at), r.Value, r.What, r.Lo, r.Hi)
}
