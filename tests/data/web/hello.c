int add(int a, int b)
{
	return a + b; /* "sum" \ */
}
int main(void) { return add(1, 2); } // cafÃ© ÿÀ¯
