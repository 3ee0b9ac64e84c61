package search

// ApplyRecencyBoost decays older hits so recent bookings rank first.
func ApplyRecencyBoost(hits []Hit) []Hit {
	for i := range hits {
		hits[i].Score = hits[i].Score / float64(1+hits[i].Age)
	}
	return hits
}
